#!/usr/bin/env node
// `npm test`: type-check, lint, import rules (once configured), then every Vitest project (unit,
// integration, e2e). The e2e project first makes the HAProxy 3.0 binary (scripts/haproxy3.sh) and
// suites declared with describeForMajors run on 2.6 and 3.0, with results printed per major.
// Stops at the first failing step; the exit code is that step's.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const steps = [
  ['type-check', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['lint', 'npx', ['eslint', '.']],
  ...(existsSync(`${root}.dependency-cruiser.cjs`)
    ? [['import rules', 'npm', ['run', 'arch']]]
    : []),
  ['tests', 'npx', ['vitest', 'run', ...process.argv.slice(2)]],
];

for (const [name, cmd, args] of steps) {
  console.log(`\n== ${name}: ${cmd} ${args.join(' ')}`);
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`npm test: ${name} failed`);
    process.exit(result.status ?? 1);
  }
}
