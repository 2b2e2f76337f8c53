#!/usr/bin/env node
// `npm test`: the project's set-up (scripts/setup.sh: the tools the tests use, fetched into .tools/
// when the machine lacks them), then every check the project has, in order, with one summary at
// the end. The set-up and each static check count as one test; Vitest projects count their tests
// (read from a JSON report), skipped ones apart. The last line is `N passed, N failed, N skipped`
// summed over every runner; the exit code is non-zero on any failure. Under CI=true a skipped test
// is a failure too (its name is printed): a green CI run must have run every test it counts.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = `${root}.cache/test`;
mkdirSync(cache, { recursive: true });

/** Static checks: each passes or fails as a whole. */
const checks = [
  ['set-up', 'bash', ['scripts/setup.sh']],
  ['build', 'npm', ['run', '--silent', 'build']],
  ['type-check', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['lint', 'npx', ['eslint', '.']],
  ['format', 'npx', ['prettier', '--check', '.']],
  ['import rules', 'npm', ['run', '--silent', 'arch']],
];

/** Vitest projects, run one after another (integration and e2e run their files serially). */
const suites = [
  { name: 'unit', args: ['--project', 'unit'] },
  { name: 'integration', args: ['--project', 'integration'] },
  { name: 'e2e', args: ['--project', 'e2e'] },
];

/**
 * The Ingress conformance suite, a short run of it: the class feature (status must not name an
 * address) and the host-rule feature (every Background waits for the status address), 7 of its 30
 * cases, each counted. `npm run conformance -- --suite ingress` runs all 30 (about 7 minutes).
 */
const conformance = {
  name: 'conformance',
  features: ['ingress_class.feature', 'host_rules.feature'],
};

/**
 * The Gateway API conformance suite, a short run of it: five GATEWAY-HTTP core cases (status,
 * routing, a redirect, the HTTPS listener, listener attachedRoutes) and one GATEWAY-GRPC core case
 * (gRPC over h2c, UNIMPLEMENTED for no match). `npm run conformance -- --suite gateway-api` runs
 * every case.
 */
const gatewayConformance = {
  name: 'conformance-gateway',
  cases: [
    'HTTPRouteSimpleSameNamespace',
    'HTTPRouteExactPathMatching',
    'HTTPRouteRedirectHostAndStatus',
    'HTTPRouteHTTPSListener',
    'GatewayWithAttachedRoutes',
    'GRPCExactMethodMatching',
  ],
};

/**
 * haptic's ingress-nginx suite, a short run of it: two core routing cases (on HAProxy 3.0 and
 * again on 2.6), a redirect, a rewrite with capture groups, X-Forwarded-Prefix, CORS, a source
 * allowlist, cookie affinity, external authentication (the vetted Lua), a client-certificate
 * host (its CA's revocation list too) and ssl-passthrough (on 3.0). `npm run conformance -- --suite ingress-nginx` runs
 * every case.
 */
const nginxConformance = {
  name: 'conformance-ingress-nginx',
  cases: [
    'routing: Prefix matches whole path elements, Exact only its path, ImplementationSpecific as Prefix',
    'routing: several Ingresses of one host are merged into one server',
    'ssl-redirect: a TLS host redirects HTTP to HTTPS with 308 by default',
    'rewrite-target: capture groups of the path fill $1, $2',
    'x-forwarded-prefix: the backend sees X-Forwarded-Prefix with the value given',
    'allowlist-source-range / whitelist-source-range: a client in a range is served, others get 403',
    'enable-cors: a preflight gets 204 with the default CORS headers, a GET the same headers',
    'affinity: cookie with session-cookie-name pins a client to the pod that set it',
    'auth-url: the service answering 200 lets through with auth-response-headers replacing the client values; 401, 403 and 500 answered as such; another Ingress on the host not asked',
    'auth-tls-verify-client on: 200 with the CA’s client certificate and the ssl-client-* headers; 400 without one, with another CA’s or a revoked one',
    "ssl-passthrough: the host's TLS goes undecrypted to its Service (the backend's certificate), other hosts and no SNI are terminated",
  ],
};

const only = process.argv.slice(2);
const ci = process.env['CI'] === 'true' || process.env['CI'] === '1';

/** The failed tests of a Vitest JSON report, as `file > full name: first line of the error`. */
function failedNames(report) {
  const files = report.testResults.flatMap((file) => {
    const name = file.name.replace(root, '');
    const tests = file.assertionResults
      .filter((t) => t.status === 'failed')
      .map((t) => `${name} > ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
    // a file that failed outside any test (a hook, an import) has no failed assertion
    return tests.length === 0 && file.status === 'failed'
      ? [`${name}: ${firstLine(file.message)}`]
      : tests;
  });
  return files;
}
function firstLine(text) {
  return (
    String(text ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? ''
  );
}

/** The skipped and todo tests of a Vitest JSON report, as `file > full name`. */
function skippedNames(report) {
  return report.testResults.flatMap((file) =>
    file.assertionResults
      .filter((t) => t.status !== 'passed' && t.status !== 'failed')
      .map((t) => `${file.name.replace(root, '')} > ${t.fullName}`),
  );
}
// The set-up runs whenever tests run (`npm test -- unit e2e` too); static checks alone skip it.
const needsSetUp =
  only.length === 0 ||
  only.includes('set-up') ||
  [...suites, conformance, gatewayConformance, nginxConformance].some((s) => only.includes(s.name));
const selected = (name) =>
  name === 'set-up' ? needsSetUp : only.length === 0 || only.includes(name);

function run(cmd, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...env },
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const results = [];
for (const [name, cmd, args] of checks.filter(([n]) => selected(n))) {
  process.stdout.write(`\n── ${name} ──\n`);
  const started = Date.now();
  const code = await run(cmd, args);
  results.push({
    name,
    passed: code === 0 ? 1 : 0,
    failed: code === 0 ? 0 : 1,
    skipped: 0,
    ms: Date.now() - started,
  });
}

for (const suite of suites.filter((s) => selected(s.name))) {
  process.stdout.write(`\n── tests: ${suite.name} ──\n`);
  const report = `${cache}/${suite.name}.json`;
  rmSync(report, { force: true });
  const started = Date.now();
  const code = await run('npx', [
    'vitest',
    'run',
    ...suite.args,
    '--reporter=default',
    // Per-HAProxy-major totals for describeForMajors suites (prints nothing without them).
    '--reporter=./test/reporters/haproxy-majors.reporter.ts',
    '--reporter=json',
    `--outputFile.json=${report}`,
  ]);
  let passed = 0;
  let skipped = 0;
  let failed = code === 0 ? 0 : 1;
  let failures = [];
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    passed = r.numPassedTests;
    skipped = r.numPendingTests + r.numTodoTests;
    failed =
      r.numFailedTests +
      (r.numFailedTestSuites > 0 && r.numFailedTests === 0 ? r.numFailedTestSuites : 0);
    if (code !== 0 && failed === 0) failed = 1; // the runner failed outside any test
    failures = failedNames(r);
    if (ci && skipped > 0) {
      process.stdout.write(`\nCI=true: ${skipped} skipped test(s) fail the run:\n`);
      for (const name of skippedNames(r)) process.stdout.write(`  skipped: ${name}\n`);
      failed += skipped;
    }
  }
  results.push({
    name: `tests: ${suite.name}`,
    passed,
    failed,
    skipped,
    ms: Date.now() - started,
    failures,
  });
}

if (selected(conformance.name)) {
  process.stdout.write(
    `\n── tests: ${conformance.name} (ingress, ${conformance.features.join(', ')}) ──\n`,
  );
  const report = `${cache}/conformance.json`;
  rmSync(report, { force: true });
  const started = Date.now();
  const features = conformance.features.flatMap((f) => ['--feature', f]);
  const code = await run('node', [
    'scripts/conformance.mjs',
    '--suite',
    'ingress',
    '--report',
    report,
    ...features,
  ]);
  const r = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
  // the runner exits non-zero on a failed or skipped case, or when it could not run at all
  const failed = r ? r.failed + (code !== 0 && r.failed === 0 ? 1 : 0) : 1;
  results.push({
    name: `tests: ${conformance.name}`,
    passed: r ? r.passed : 0,
    failed,
    skipped: r ? r.skipped : 0,
    ms: Date.now() - started,
  });
}

if (selected(gatewayConformance.name)) {
  process.stdout.write(
    `\n── tests: ${gatewayConformance.name} (gateway-api, ${gatewayConformance.cases.join(', ')}) ──\n`,
  );
  const report = `${cache}/conformance-gateway.json`;
  rmSync(report, { force: true });
  const started = Date.now();
  const code = await run('node', [
    'scripts/conformance.mjs',
    '--suite',
    'gateway-api',
    '--report',
    report,
    ...gatewayConformance.cases.flatMap((c) => ['--case', c]),
  ]);
  const r = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
  const failed = r ? r.failed + (code !== 0 && r.failed === 0 ? 1 : 0) : 1;
  results.push({
    name: `tests: ${gatewayConformance.name}`,
    passed: r ? r.passed : 0,
    failed,
    skipped: r ? r.skipped : 0,
    ms: Date.now() - started,
  });
}

if (selected(nginxConformance.name)) {
  process.stdout.write(
    `\n── tests: ${nginxConformance.name} (${nginxConformance.cases.length} cases) ──\n`,
  );
  const report = `${cache}/conformance-ingress-nginx.json`;
  rmSync(report, { force: true });
  const started = Date.now();
  const code = await run('node', [
    'scripts/conformance.mjs',
    '--suite',
    'ingress-nginx',
    '--report',
    report,
    ...nginxConformance.cases.flatMap((c) => ['--case', c]),
  ]);
  const r = existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : undefined;
  const failed = r ? r.failed + (code !== 0 && r.failed === 0 ? 1 : 0) : 1;
  results.push({
    name: `tests: ${nginxConformance.name}`,
    passed: r ? r.passed : 0,
    failed,
    skipped: r ? r.skipped : 0,
    ms: Date.now() - started,
  });
}

const total = results.reduce(
  (t, r) => ({
    passed: t.passed + r.passed,
    failed: t.failed + r.failed,
    skipped: t.skipped + r.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
process.stdout.write('\n── summary ──\n');
for (const r of results) {
  process.stdout.write(
    `${r.failed ? 'FAIL' : 'ok  '} ${r.name.padEnd(34)} ${String(r.passed).padStart(5)} passed ${String(r.failed).padStart(3)} failed ${String(r.skipped).padStart(3)} skipped  ${(r.ms / 1000).toFixed(1)} s\n`,
  );
}
// The failed tests by name, at the end where a truncated log still shows them.
const failures = results.flatMap((r) => (r.failures ?? []).map((f) => `${r.name}: ${f}`));
if (failures.length > 0) {
  process.stdout.write('\nfailed:\n');
  for (const f of failures) process.stdout.write(`  ${f}\n`);
}
writeFileSync(`${cache}/summary.json`, JSON.stringify({ ...total, results }, null, 2));
process.stdout.write(`${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
process.exitCode = total.failed > 0 ? 1 : 0;
