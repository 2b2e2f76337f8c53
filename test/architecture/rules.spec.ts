import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixtureTree = fileURLToPath(new URL('./fixtures/tree/', import.meta.url));

interface Violation {
  readonly from: string;
  readonly to: string;
  readonly rule: { readonly name: string };
}

/** Runs dependency-cruiser with the project's rules on a tree and returns its violations. */
async function cruise(cwd: string, targets: string[]): Promise<Violation[]> {
  const bin = `${root}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`;
  const args = [
    bin,
    '--config',
    `${root}.dependency-cruiser.cjs`,
    '--output-type',
    'json',
    ...targets,
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    cwd,
    maxBuffer: 64 << 20,
  }).catch(
    (e: { stdout: string }) => ({ stdout: e.stdout }), // exit code is non-zero when violations exist
  );
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('import rules', () => {
  it('the project itself has no violations', async () => {
    expect(await cruise(root, ['apps', 'libs', 'test'])).toEqual([]);
  }, 60_000);

  it.each([
    ['no-sibling-libs', 'libs/render/src/sibling.ts'],
    ['pure-lib-folders', 'libs/render/src/lib/uses-nest.ts'],
    ['pure-lib-folders', 'libs/render/src/lib/uses-bus.ts'],
    ['testing-only-in-tests', 'libs/render/src/uses-testing.ts'],
    ['lib-through-index', 'apps/controller/src/deep-import.ts'],
    ['no-circular', 'libs/render/src/cycle-a.ts'],
    ['no-circular', 'libs/render/src/type-cycle-a.ts'],
    ['kube-client-only-where-allowed', 'libs/render/src/uses-kube.ts'],
    ['product-never-imports-testbed', 'libs/render/src/uses-testbed.ts'],
    ['product-never-imports-testbed', 'apps/controller/src/uses-testbed.ts'],
  ])(
    'rule %s bites on %s',
    async (rule, from) => {
      const violations = await cruise(fixtureTree, ['apps', 'libs']);
      expect(violations.map((v) => `${v.rule.name} ${v.from}`)).toContain(`${rule} ${from}`);
    },
    60_000,
  );
});
