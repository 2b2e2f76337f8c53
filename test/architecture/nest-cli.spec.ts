import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The Nest monorepo file names every app and library, so Nest tooling sees the whole project.
const root = fileURLToPath(new URL('../../', import.meta.url));
const nest = JSON.parse(readFileSync(`${root}nest-cli.json`, 'utf8')) as {
  projects: Record<string, { type: string; root: string; sourceRoot: string }>;
};

/** The project folders under `dir` (libs/testbed/ holds the test-bed's libraries, one level down). */
function projectFolders(dir: string): string[] {
  return readdirSync(`${root}${dir}`, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .flatMap((e) =>
      dir === 'libs' && e.name === 'testbed'
        ? projectFolders('libs/testbed')
        : [`${dir}/${e.name}`],
    )
    .sort();
}

describe('nest-cli.json', () => {
  it.each([
    ['libs', 'library'],
    ['apps', 'application'],
  ])('lists every folder of %s as a %s', (dir, type) => {
    const listed = Object.entries(nest.projects)
      .filter(([, p]) => p.type === type)
      .map(([name, p]) => {
        expect(p.root.endsWith(`/${name}`)).toBe(true);
        expect(p.sourceRoot).toBe(`${p.root}/src`);
        return p.root;
      })
      .sort();
    expect(listed).toEqual(projectFolders(dir));
  });
});
