import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Runs the project's set-up (scripts/setup.sh) before the e2e suites, so that however they are
// started, a machine lacking HAProxy 2.6, openssl or promtool gets them in .tools/ and HAProxy
// 3.0 is made: both majors run (a fraction of a second when everything is there). If the set-up
// fails, the suites that need a missing tool fail with the reason; nothing is skipped.
export default function setup(): void {
  const script = fileURLToPath(new URL('../../scripts/setup.sh', import.meta.url));
  const result = spawnSync('bash', [script], { encoding: 'utf8', timeout: 600_000 });
  if (result.status !== 0) {
    process.stderr.write(
      `The project set-up failed (suites needing its tools will fail):\n${result.stderr}\n`,
    );
  }
}
