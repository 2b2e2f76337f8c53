import { LiquidError, type Token } from 'liquidjs';
import { TemplateValueError } from './provenance.js';
import type { ObjectRef, RenderProblem, RenderProblemCode } from './types.js';

const POSITION_SUFFIX = /(, file:.*?)?, line:\d+, col:\d+$/s;

function codeOf(message: string): RenderProblemCode {
  if (message.startsWith('undefined filter')) return 'unknown-filter';
  if (/^tag ".*" not found/.test(message)) return 'unknown-tag';
  if (message.startsWith('snippet not found')) return 'unknown-snippet';
  return 'syntax';
}

/** The error at the bottom of liquidjs's wrappers (what a filter, tag or provider threw). */
export function innermostError(err: unknown): unknown {
  let e = err;
  for (let i = 0; i < 10 && LiquidError.is(e); i++) {
    const original = (e as { originalError?: unknown }).originalError;
    if (original === undefined) break;
    e = original;
  }
  return e;
}

function cleanMessage(message: string): string {
  const m = message.replace(POSITION_SUFFIX, '');
  const snippet = /^ENOENT: Failed to lookup "(.*)" in .*$/s.exec(m);
  return snippet ? `snippet not found: ${snippet[1]}` : m;
}

/** Turns an error thrown by liquidjs (parse or render) into a located problem. */
export function problemFrom(
  err: unknown,
  template: string,
  fallback: RenderProblemCode,
): RenderProblem {
  const token = LiquidError.is(err) ? (err as { token?: Token }).token : undefined;
  const cause = innermostError(err);
  const message = cleanMessage(cause instanceof Error ? cause.message : String(cause));
  const position = token?.getPosition();
  const problem: RenderProblem = {
    code:
      cause instanceof TemplateValueError
        ? cause.code
        : fallback === 'syntax'
          ? codeOf(message)
          : codeOf(message) === 'unknown-snippet'
            ? 'unknown-snippet'
            : fallback,
    template: token?.file ?? template,
    ...(position ? { line: position[0], column: position[1] } : {}),
    message,
  };
  if (!(cause instanceof TemplateValueError)) return problem;
  if (cause.object) return { ...problem, object: cause.object };
  return cause.rendering ? { ...problem, rendering: cause.rendering } : problem;
}

/** One line for logs and the user: `template:line:column: message (object kind ns/name)`. */
export function formatProblem(p: RenderProblem): string {
  const where = [p.template, p.line, p.column].filter((x) => x !== undefined).join(':');
  const name = (o: ObjectRef): string =>
    `${o.kind} ${o.namespace === undefined ? '' : `${o.namespace}/`}${o.name}`;
  const obj = p.object
    ? ` (${name(p.object)})`
    : p.rendering
      ? ` (while rendering ${name(p.rendering)})`
      : '';
  return `${where}: ${p.message}${obj}`;
}

/** Problems in a stable order, duplicates removed. */
export function sortProblems(problems: readonly RenderProblem[]): RenderProblem[] {
  const seen = new Map<string, RenderProblem>();
  for (const p of problems) seen.set(JSON.stringify(p), p);
  return [...seen.values()].sort(
    (a, b) =>
      cmp(a.template, b.template) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      cmp(a.message, b.message),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
