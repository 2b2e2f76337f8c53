import type { Reporter, TestCase, TestModule } from 'vitest/node';

// Groups the results of suites declared with `describeForMajors` (titles starting with
// `[haproxy X.Y]`) per HAProxy major and prints one summary line each after the run. Prints
// nothing when no such suite ran, so it can stay in the shared Vitest configuration.
const TAG = /^\[haproxy (\d+\.\d+)\]/;
/** Matches LEFT_OUT_MARKER of libs/testbed/testing's describeForMajors. */
const LEFT_OUT = '(left out by HAPTIC_HAPROXY_MAJORS)';

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  files: Set<string>;
  failures: string[];
  leftOut: Set<string>;
}

function topSuiteName(test: TestCase): string {
  return test.fullName.split(' > ')[0] ?? '';
}

/** Counts every matrix test of the run by major. */
export function tallyByMajor(modules: ReadonlyArray<TestModule>): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const major = TAG.exec(topSuiteName(test))?.[1];
      if (major === undefined) continue;
      let t = tallies.get(major);
      if (!t)
        tallies.set(
          major,
          (t = {
            passed: 0,
            failed: 0,
            skipped: 0,
            durationMs: 0,
            files: new Set(),
            failures: [],
            leftOut: new Set(),
          }),
        );
      const state = test.result().state;
      if (state === 'passed') t.passed++;
      else if (state === 'failed') {
        t.failed++;
        t.failures.push(`${module.moduleId.split('/').slice(-3).join('/')}: ${test.fullName}`);
      } else {
        t.skipped++;
        const suite = topSuiteName(test);
        if (suite.endsWith(LEFT_OUT))
          t.leftOut.add(`${module.moduleId.split('/').slice(-3).join('/')}: ${suite}`);
      }
      t.durationMs += test.diagnostic()?.duration ?? 0;
      t.files.add(module.moduleId);
    }
  }
  return tallies;
}

export default class HaproxyMajorsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const tallies = tallyByMajor(testModules);
    if (tallies.size === 0) return;
    const lines = ['', 'HAProxy matrix, results per major:'];
    for (const [major, t] of [...tallies].sort(([a], [b]) =>
      a.localeCompare(b, 'en', { numeric: true }),
    )) {
      const files = `${t.files.size} file${t.files.size === 1 ? '' : 's'}`;
      const skipped = t.skipped > 0 ? `, ${t.skipped} not run` : '';
      lines.push(
        `  haproxy ${major}: ${t.passed} passed, ${t.failed} failed${skipped} (${files}, ${(t.durationMs / 1000).toFixed(1)} s)`,
      );
      for (const failure of t.failures) lines.push(`    failed: ${failure}`);
      for (const suite of t.leftOut) lines.push(`    skipped, ${suite}`);
    }
    process.stdout.write(`${lines.join('\n')}\n\n`);
  }
}
