#!/usr/bin/env node
// `npm run soak -- --minutes N [--seed S]`: the fault soak (test/e2e/soak/soak.spec.ts,
// test/soak/README.md) for N minutes (default 30), with a seed to replay a run (default random,
// printed). Builds first: the soak runs the built `haptic` command.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '30' }, seed: { type: 'string' } },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  console.error(`soak: --minutes must be a positive number (got ${values.minutes})`);
  process.exit(2);
}
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
if (!/^\d+$/.test(seed)) {
  console.error(`soak: --seed must be a non-negative integer (got ${seed})`);
  process.exit(2);
}
console.log(`soak: ${minutes} min, seed ${seed}`);
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status ??
  1;
let code = run('npm', ['run', '--silent', 'build']);
if (code === 0)
  code = run('npx', ['vitest', 'run', '--project', 'e2e', 'test/e2e/soak/soak.spec.ts'], {
    SOAK_MINUTES: String(minutes),
    SOAK_SEED: seed,
  });
console.log(`soak: seed ${seed}: ${code === 0 ? 'passed' : 'FAILED'}`);
process.exit(code);
