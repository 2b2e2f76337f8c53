import type { TestReport } from './test-runner.js';

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** A pass/fail table of a test run, failures explained beneath each failing test. */
export function formatTestReport(report: TestReport): string {
  const width = Math.max(4, ...report.tests.map((t) => t.name.length)) + 2;
  const lines = [`${pad('TEST', width)}${pad('RESULT', 8)}${pad('ASSERTIONS', 12)}TIME`];
  for (const t of report.tests) {
    const ok = t.assertions.filter((a) => a.passed).length;
    lines.push(
      `${pad(t.name, width)}${pad(t.passed ? 'PASS' : 'FAIL', 8)}${pad(`${ok}/${t.assertions.length}`, 12)}${Math.round(t.durationMs)} ms`,
    );
    if (t.passed) continue;
    if (t.renderError !== undefined && !t.assertions.some((a) => a.type === 'rendering_error')) {
      lines.push(`  render failed: ${t.renderError}`);
    }
    for (const a of t.assertions.filter((x) => !x.passed)) {
      const what = a.description === undefined ? '' : ` (${a.description})`;
      lines.push(`  x [${a.index}] ${a.type} ${a.target}${what}: ${a.message}`);
    }
  }
  const { tests, failedTests, assertions, failedAssertions } = report.totals;
  lines.push(
    `${tests} test${tests === 1 ? '' : 's'}, ${failedTests} failed; ${assertions} assertion${assertions === 1 ? '' : 's'}, ${failedAssertions} failed`,
  );
  return lines.join('\n');
}
