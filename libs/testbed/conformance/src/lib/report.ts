import type { Envelope, Pickle } from '@cucumber/messages';

/** One scenario (an outline's example row counts as one) and how it ended. */
export interface CaseReport {
  readonly name: string;
  readonly result: 'passed' | 'failed' | 'skipped';
  readonly reason: string;
}

/** What `npm run conformance -- --suite S -o json` prints. */
export interface SuiteReport {
  readonly suite: string;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly cases: readonly CaseReport[];
}

interface CaseState {
  pickle: Pickle;
  worst: CaseReport['result'];
  reason: string;
}

/** PASSED, SKIPPED/PENDING (skipped), anything else (FAILED, UNDEFINED, AMBIGUOUS, UNKNOWN) failed. */
const outcome = (s: string): CaseReport['result'] =>
  s === 'PASSED' ? 'passed' : s === 'SKIPPED' || s === 'PENDING' ? 'skipped' : 'failed';
const rank = { passed: 0, skipped: 1, failed: 2 } as const;

/** Folds cucumber's message stream into one report line per executed scenario. */
export class ReportBuilder {
  private readonly pickles = new Map<string, Pickle>();
  private readonly steps = new Map<string, string>(); // testStep id → step text
  private readonly testCases = new Map<string, string>(); // testCase id → pickle id
  private readonly started = new Map<string, CaseState>(); // testCaseStarted id → state
  private readonly finished: CaseState[] = [];

  constructor(
    private readonly suite: string,
    private readonly progress: (c: CaseReport) => void = () => undefined,
  ) {}

  /** Feed every envelope of a run, in order. */
  add(e: Envelope): void {
    if (e.pickle) this.pickles.set(e.pickle.id, e.pickle);
    if (e.testCase) {
      this.testCases.set(e.testCase.id, e.testCase.pickleId);
      const pickle = this.pickles.get(e.testCase.pickleId);
      for (const s of e.testCase.testSteps) {
        const text = pickle?.steps.find((p) => p.id === s.pickleStepId)?.text;
        this.steps.set(s.id, text ?? 'a hook');
      }
    }
    if (e.testCaseStarted) {
      const pickle = this.pickles.get(this.testCases.get(e.testCaseStarted.testCaseId) ?? '');
      if (pickle) this.started.set(e.testCaseStarted.id, { pickle, worst: 'passed', reason: '' });
    }
    if (e.testStepFinished) {
      const c = this.started.get(e.testStepFinished.testCaseStartedId);
      const r = e.testStepFinished.testStepResult;
      const result = outcome(String(r.status));
      if (c && rank[result] > rank[c.worst]) {
        c.worst = result;
        const message = (r.message ?? r.status).split('\n')[0];
        c.reason = `${this.steps.get(e.testStepFinished.testStepId) ?? 'a step'}: ${message}`;
      }
    }
    if (e.testCaseFinished) {
      const c = this.started.get(e.testCaseFinished.testCaseStartedId);
      if (c && !e.testCaseFinished.willBeRetried) {
        this.finished.push(c);
        this.progress(this.caseOf(c));
      }
    }
  }

  private caseOf(c: CaseState): CaseReport {
    const line = c.pickle.location?.line ?? '?';
    return {
      name: `${c.pickle.uri.split('/').pop()}:${line} ${c.pickle.name}`,
      result: c.worst,
      reason: c.reason,
    };
  }

  /** The report; cases are named `file:line name` (the line of the scenario or example row). */
  build(): SuiteReport {
    const cases = this.finished.map((c) => this.caseOf(c));
    const count = (r: CaseReport['result']) => cases.filter((c) => c.result === r).length;
    return {
      suite: this.suite,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      cases,
    };
  }
}

/** The report as a few human lines. */
export function formatReport(r: SuiteReport): string {
  const lines = r.cases.map(
    (c) =>
      `${c.result === 'passed' ? 'ok  ' : c.result === 'failed' ? 'FAIL' : 'skip'} ${c.name}${c.reason ? `\n       ${c.reason}` : ''}`,
  );
  lines.push(
    `${r.suite}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped (${r.cases.length} cases)`,
  );
  return lines.join('\n');
}
