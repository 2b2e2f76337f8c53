import type { ApiAnswer } from './helpers.js';
import { SPEC_FILES, SpecValidator } from './openapi-validator.js';

/** A response that broke a specification. */
export interface Violation {
  readonly spec: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly errors: readonly string[];
}

/**
 * Checks every observed answer against both specifications and records which
 * (path template × method × response key) were exercised.
 */
export class ConformanceRecorder {
  readonly v34 = new SpecValidator(SPEC_FILES['3.4']);
  readonly v30 = new SpecValidator(SPEC_FILES['3.0']);
  readonly violations: Violation[] = [];
  /** Known, explained disagreements between the 3.0 and 3.4 specs (3.4 followed). */
  readonly specConflicts: Violation[] = [];
  readonly seen = new Set<string>();
  count = 0;

  observe = (a: ApiAnswer): void => {
    this.count++;
    const obs = {
      method: a.method,
      path: a.path,
      status: a.status,
      headers: a.headers,
      body: a.body,
    };
    const r34 = this.v34.check(obs);
    if (r34.template) this.seen.add(`${a.method} ${r34.template} ${r34.responseKey ?? '?'}`);
    if (r34.errors.length) this.violations.push({ spec: '3.4', ...obs, errors: r34.errors });
    const r30 = this.v30.check(obs);
    if (r30.errors.length) {
      const v = { spec: '3.0', ...obs, errors: r30.errors };
      // Where 3.0 makes an operation produce only text/plain or octet-stream, its error answers
      // cannot carry the JSON error object that 3.4 documents for the same status: the agent
      // follows 3.4 there. Anything else is a violation.
      const conflict =
        a.status >= 400 &&
        r34.errors.length === 0 &&
        r30.errors.some((e) => e.startsWith('content-type'));
      (conflict ? this.specConflicts : this.violations).push(v);
    }
  };

  /** Rows of the coverage table for the implemented routes under /v3. */
  table(routes: readonly { method: string; template: string }[]): { row: string; hit: boolean }[] {
    const rows: { row: string; hit: boolean }[] = [];
    for (const r of routes) {
      if (!r.template.startsWith('/v3/')) continue;
      const template = r.template.slice(3);
      const statuses = this.v34.statuses(template, r.method);
      for (const s of statuses) {
        rows.push({
          row: `${r.method.padEnd(6)} ${template} ${s}`,
          hit: this.seen.has(`${r.method} ${template} ${s}`),
        });
      }
    }
    return rows;
  }
}
