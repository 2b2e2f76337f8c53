#!/usr/bin/env node
// Runs the HAProxy test matrix: makes the project's HAProxy 3.0 binary (scripts/haproxy3.sh),
// then the e2e suites declared with describeForMajors, printing results per HAProxy major.
//
//   node scripts/test-matrix.mjs [--majors 2.6,3.0] [vitest file filters...]   (default: test/e2e)
//
// Exit code: vitest's (non-zero when any major fails), or the script's when 3.0 cannot be made.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const env = { ...process.env };
const majorsAt = args.indexOf('--majors');
if (majorsAt >= 0) {
  env.HAPTIC_HAPROXY_MAJORS = args[majorsAt + 1] ?? '';
  args.splice(majorsAt, 2);
}

const wants30 = !env.HAPTIC_HAPROXY_MAJORS || env.HAPTIC_HAPROXY_MAJORS.split(',').includes('3.0');
if (wants30) {
  const made = spawnSync('bash', [`${root}scripts/haproxy3.sh`], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  if (made.status !== 0) {
    console.error(
      'test-matrix: HAProxy 3.0 is not available; the matrix cannot run on both majors.',
    );
    process.exit(made.status ?? 1);
  }
}

const filters = args.length > 0 ? args : ['test/e2e'];
const run = spawnSync('npx', ['vitest', 'run', '--project', 'e2e', ...filters], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
