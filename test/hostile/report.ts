import type { Verdict } from './classify.js';
import type { HostileCase } from './corpus.js';

/** One case's outcome in one leg. */
export interface Outcome {
  readonly case: HostileCase;
  readonly verdict: Verdict;
}

const LETTER: Readonly<Record<Verdict['kind'], string>> = {
  quarantined: 'Q',
  'rendered-safely': 'S',
  injection: 'X',
  unaccounted: '?',
};

/** Counts per verdict kind. */
export function tally(outcomes: readonly Outcome[]): Record<Verdict['kind'], number> {
  const t = { quarantined: 0, 'rendered-safely': 0, injection: 0, unaccounted: 0 };
  for (const o of outcomes) t[o.verdict.kind]++;
  return t;
}

/**
 * The fields × hazards table: one row per field, one column per hazard, a letter per case
 * (Q quarantined, S rendered safely, X injection, ? unaccounted, . no case).
 */
export function coverageTable(outcomes: readonly Outcome[]): string {
  const fields = [...new Set(outcomes.map((o) => o.case.field))];
  const hazards = [...new Set(outcomes.map((o) => o.case.hazard))];
  const cell = new Map(outcomes.map((o) => [`${o.case.field}|${o.case.hazard}`, o.verdict]));
  const width = Math.max(...fields.map((f) => f.length));
  const rows = fields.map((f) => {
    const letters = hazards.map((h) => {
      const v = cell.get(`${f}|${h}`);
      return v ? LETTER[v.kind] : '.';
    });
    return `${f.padEnd(width)} ${letters.join('')}`;
  });
  const legend = hazards.map((h, k) => `${String(k + 1).padStart(2)} ${h}`).join('\n');
  return `${rows.join('\n')}\n\ncolumns:\n${legend}\n`;
}
