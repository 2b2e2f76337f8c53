import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The Nest monorepo file names every app and library, so Nest tooling sees the whole project.
const root = fileURLToPath(new URL('../../', import.meta.url));
const nest = JSON.parse(readFileSync(`${root}nest-cli.json`, 'utf8')) as {
  projects: Record<string, { type: string; root: string; sourceRoot: string }>;
};

describe('nest-cli.json', () => {
  it.each([
    ['libs', 'library'],
    ['apps', 'application'],
  ])('lists every folder of %s as a %s', (dir, type) => {
    const folders = readdirSync(`${root}${dir}`, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    const listed = Object.entries(nest.projects)
      .filter(([, p]) => p.type === type)
      .map(([name, p]) => {
        expect(p.root).toBe(`${dir}/${name}`);
        expect(p.sourceRoot).toBe(`${dir}/${name}/src`);
        return name;
      })
      .sort();
    expect(listed).toEqual(folders);
  });
});
