#!/usr/bin/env node
// `npm run conformance -- --suite ingress [-o json] [--report FILE] [--feature F.feature ...]`: runs a conformance suite
// (Gherkin features under test/conformance/<suite>/) against the stack and prints its report.
// `--suite gateway-api [--case NAME ...]`: the Gateway API cases (libs/testbed/conformance/src/lib/gateway).
// `--suite ingress-nginx [--case NAME ...] [--haproxy-major M ...]`: haptic's behavioural suite of
// the ingress-nginx library (libs/testbed/conformance/src/lib/nginx): every case on the first major (3.0),
// the core routing cases on the others too (default 3.0 and 2.6).
// Exit code 1 when a case failed or was skipped.
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    suite: { type: 'string', default: 'ingress' },
    output: { type: 'string', short: 'o', default: 'text' },
    report: { type: 'string' },
    // Only these feature files of the suite (by file name), e.g. for a short run in `npm test`.
    feature: { type: 'string', multiple: true },
    // gateway-api: only these cases (by upstream test name, e.g. HTTPRouteWeight); ingress-nginx:
    // by case name.
    case: { type: 'string', multiple: true },
    // ingress-nginx: the HAProxy majors (the first runs every case, the others the core ones).
    'haproxy-major': { type: 'string', multiple: true },
  },
});

function step(what, cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write(`${what} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}\n`);
    process.exit(1);
  }
}
step('scripts/setup.sh', 'bash', ['scripts/setup.sh']);
// always: a dist/ older than the sources would run old cases against old code
step('npm run build', 'npm', ['run', '--silent', 'build']);

const { runSuite, formatReport } = await import('#testbed/conformance');
const features =
  values.suite === 'gateway-api' || values.suite === 'ingress-nginx'
    ? values.case
    : values.feature?.map((f) => join(root, 'test/conformance', values.suite, f));
const report = await runSuite(
  values.suite,
  features,
  (c) =>
    process.stderr.write(
      `${c.result === 'passed' ? 'ok  ' : c.result === 'failed' ? 'FAIL' : 'skip'} ${c.name}${c.result === 'failed' && c.reason ? `\n     ${c.reason}` : ''}\n`,
    ),
  { haproxyMajors: values['haproxy-major'] },
);
if (values.report) await writeFile(values.report, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(
  values.output === 'json' ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`,
);
process.exitCode = report.failed + report.skipped > 0 || report.cases.length === 0 ? 1 : 0;
