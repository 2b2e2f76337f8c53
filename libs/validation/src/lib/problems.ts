import type { SourceLocation } from './outputs.js';

/** Which step found a problem: our own checks, the directive policy, or `haproxy -c`. */
export type ProblemStage = 'structure' | 'refused' | 'haproxy';

/** One thing wrong with a render, short enough to show a person (status, webhook, CLI). */
export interface ValidationProblem {
  readonly stage: ProblemStage;
  /** The output at fault, named like assertion targets (`haproxy.cfg`, `map:hosts.map`). */
  readonly output: string;
  /** 1-based line in that output, when known. */
  readonly line?: number;
  readonly reason: string;
  /** For refusals: the id to list in spec.validation.allowedDirectives. */
  readonly directive?: string;
  /** The template or snippet line that produced the output line. */
  readonly origin?: SourceLocation;
  /** True when `origin` was inferred from the text, not reported by the renderer. */
  readonly originApproximate?: boolean;
}

/** `haproxy.cfg:12 (from snippet "x" line 3, object y): reason` — the one-line form. */
export function formatProblem(p: ValidationProblem): string {
  const where = p.line === undefined ? p.output : `${p.output}:${p.line}`;
  const o = p.origin;
  const from = o
    ? ` (${p.originApproximate ? 'probably ' : ''}from template "${o.template}" line ${o.line}` +
      `${o.column === undefined ? '' : `:${o.column}`}${o.object ? `, object ${o.object}` : ''})`
    : '';
  return `${where}${from}: ${p.reason}`;
}
