import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Makes the project's HAProxy 3.0 binary before the e2e suites run, so that `npm test` on a
// fresh clone runs the matrix on both majors (a few milliseconds when it is already there). If it
// cannot be made, the 3.0 suites fail with the reason; nothing is skipped.
export default function setup(): void {
  const majors = process.env['HAPTIC_HAPROXY_MAJORS'];
  if (majors && !majors.split(',').some((m) => m.trim() === '3.0')) return;
  const script = fileURLToPath(new URL('../../scripts/haproxy3.sh', import.meta.url));
  const result = spawnSync('bash', [script, '--quiet'], { encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) {
    process.stderr.write(
      `HAProxy 3.0 could not be prepared (suites needing it will fail):\n${result.stderr}\n`,
    );
  }
}
