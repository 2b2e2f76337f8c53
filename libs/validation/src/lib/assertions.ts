import { parseFieldPath, type AssertionSpec, type DeepReadonly } from '#core';
import { listOutputs, outputContent, type RenderedOutputs, type SourceMaps } from './outputs.js';
import { formatProblem } from './problems.js';
import { formatRenderFailure, type RenderOutcome } from './render-port.js';
import type { ValidationResult } from './validate.js';

/** The verdict of one assertion, with a message that says what was seen. */
export interface AssertionResult {
  readonly index: number;
  readonly type: string;
  readonly target: string;
  readonly description?: string;
  readonly passed: boolean;
  readonly message: string;
}

/** What assertions can use besides the spec: the render, a second render, validation. */
export interface AssertionContext {
  readonly outcome: RenderOutcome;
  readonly renderAgain: () => Promise<RenderOutcome>;
  readonly validate: (outputs: RenderedOutputs, maps?: SourceMaps) => Promise<ValidationResult>;
  /** The render context used when the renderer did not return one (jsonpath assertions). */
  readonly fallbackContext: unknown;
}

type Spec = DeepReadonly<AssertionSpec>;
type Verdict = { passed: boolean; message: string };

const pass = (message: string): Verdict => ({ passed: true, message });
const fail = (message: string): Verdict => ({ passed: false, message });
const show = (s: string, max = 80): string =>
  JSON.stringify(s.length > max ? `${s.slice(0, max - 3)}...` : s);
const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

function regex(pattern: string, flags = 'm'): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    return `pattern /${pattern}/ is not a valid regular expression: ${(e as Error).message}`;
  }
}

function patternOf(a: Spec): string | undefined {
  return typeof a.pattern === 'string' ? a.pattern : undefined;
}

function contains(a: Spec, text: string, negate: boolean): Verdict {
  const re = regex(patternOf(a) ?? '');
  if (typeof re === 'string') return fail(re);
  const m = re.exec(text);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (negate) {
    return m
      ? fail(`/${re.source}/ matched ${show(m[0])} at line ${lineAt(text, m.index)} of ${a.target}`)
      : pass(`/${re.source}/ not found in ${a.target}`);
  }
  return m
    ? pass(`/${re.source}/ found at line ${lineAt(text, m.index)}`)
    : fail(`/${re.source}/ not found in ${a.target} (${lines} line${lines === 1 ? '' : 's'})`);
}

function equals(a: Spec, text: string): Verdict {
  if (typeof a.expected !== 'string') return fail('equals needs `expected` as a string');
  if (text === a.expected) return pass(`${a.target} equals the expected text`);
  const got = text.split('\n');
  const want = a.expected.split('\n');
  const i = got.findIndex((l, n) => l !== want[n]);
  const at = i < 0 ? got.length : i;
  const line = (l: string | undefined): string =>
    l === undefined ? 'the end of the text' : show(l);
  return fail(
    `${a.target} differs from the expected text at line ${at + 1}: expected ${line(want[at])}, got ${line(got[at])}`,
  );
}

function matchCount(a: Spec, text: string): Verdict {
  const want = Number(a.expected);
  if (a.expected === undefined || !Number.isInteger(want))
    return fail('match_count needs `expected` as an integer');
  const re = regex(patternOf(a) ?? '', 'gm');
  if (typeof re === 'string') return fail(re);
  const n = [...text.matchAll(re)].length;
  return n === want
    ? pass(`/${re.source}/ matched ${n} time${n === 1 ? '' : 's'}`)
    : fail(
        `/${re.source}/ matched ${n} time${n === 1 ? '' : 's'} in ${a.target}, expected ${want}`,
      );
}

function matchOrder(a: Spec, text: string): Verdict {
  const patterns = Array.isArray(a.pattern) ? (a.pattern as readonly string[]) : [];
  if (patterns.length < 2)
    return fail('match_order needs `pattern` as a list of at least two patterns');
  let from = 0;
  const found: number[] = [];
  for (const [i, p] of patterns.entries()) {
    const re = regex(p);
    if (typeof re === 'string') return fail(re);
    const m = re.exec(text.slice(from));
    if (!m) {
      const where =
        i === 0
          ? `in ${a.target}`
          : `after /${patterns[i - 1]}/ (line ${found[i - 1]}) in ${a.target}`;
      const anywhere = re.exec(text);
      const hint = anywhere ? `; it occurs earlier, at line ${lineAt(text, anywhere.index)}` : '';
      return fail(`pattern ${i + 1} /${p}/ not found ${where}${hint}`);
    }
    found.push(lineAt(text, from + m.index));
    from += m.index + Math.max(1, m[0].length);
  }
  return pass(`all ${patterns.length} patterns found in order (lines ${found.join(', ')})`);
}

async function deterministic(
  a: Spec,
  first: RenderedOutputs,
  again: () => Promise<RenderOutcome>,
): Promise<Verdict> {
  const second = await again();
  if (!second.ok) return fail(`the second render failed: ${formatRenderFailure(second.error)}`);
  const other = new Map(listOutputs(second.outputs));
  for (const [target, text] of listOutputs(first)) {
    const t2 = other.get(target);
    if (t2 === undefined) return fail(`${target} is missing from the second render`);
    if (t2 !== text) {
      const l1 = text.split('\n');
      const l2 = t2.split('\n');
      const i = l1.findIndex((l, n) => l !== l2[n]);
      const at = i < 0 ? l1.length : i;
      return fail(
        `${target} differs between two renders at line ${at + 1}: ${show(l1[at] ?? '<end>')} then ${show(l2[at] ?? '<end>')}`,
      );
    }
    other.delete(target);
  }
  const extra = [...other.keys()];
  return extra.length > 0
    ? fail(`the second render has outputs the first lacks: ${extra.join(', ')}`)
    : pass(`two renders are byte-identical (${listOutputs(first).length} outputs)`);
}

/** Reads a field path (`resources.ingresses[0].metadata.name`, `x.size`) from the context. */
export function readContextPath(
  context: unknown,
  path: string,
): { found: boolean; value: unknown } | string {
  const parsed = parseFieldPath(path);
  if (!parsed) return `jsonpath ${show(path)} is not a valid field path`;
  let cur: unknown = context;
  for (const key of parsed) {
    if (cur === null || cur === undefined) return { found: false, value: undefined };
    if (typeof cur === 'object' && Object.hasOwn(cur, key)) {
      cur = (cur as Record<string | number, unknown>)[key];
    } else if (key === 'size' || key === 'length') {
      // Liquid's `.size`, as templates write it.
      cur = Array.isArray(cur)
        ? cur.length
        : typeof cur === 'string'
          ? cur.length
          : Object.keys(cur).length;
    } else return { found: false, value: undefined };
  }
  return { found: cur !== undefined, value: cur };
}

/** Structural equality for JSON-like values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

function jsonpath(a: Spec, context: unknown): Verdict {
  const path = a.jsonpath ?? '';
  const r = readContextPath(context, path);
  if (typeof r === 'string') return fail(r);
  if (a.expected === undefined) {
    return r.found && r.value !== null
      ? pass(`${path} is ${JSON.stringify(r.value)}`)
      : fail(`${path} has no value`);
  }
  if (!r.found) return fail(`${path} has no value, expected ${JSON.stringify(a.expected)}`);
  return jsonEqual(r.value, a.expected)
    ? pass(`${path} is ${JSON.stringify(r.value)}`)
    : fail(`${path} is ${JSON.stringify(r.value)}, expected ${JSON.stringify(a.expected)}`);
}

function renderingError(a: Spec, outcome: RenderOutcome): Verdict {
  const want =
    a.expected === undefined
      ? undefined
      : typeof a.expected === 'string'
        ? a.expected
        : JSON.stringify(a.expected);
  if (outcome.ok)
    return fail(
      `the render succeeded, but an error${want ? ` containing ${show(want)}` : ''} was expected`,
    );
  const text = formatRenderFailure(outcome.error);
  if (want === undefined || text.includes(want))
    return pass(`the render failed as expected: ${text}`);
  return fail(`the render failed with ${show(text, 200)}, which does not contain ${show(want)}`);
}

async function haproxyValid(
  outputs: RenderedOutputs,
  ctx: AssertionContext,
  maps?: SourceMaps,
): Promise<Verdict> {
  const result = await ctx.validate(outputs, maps);
  if (!result.valid) return fail(result.problems.map(formatProblem).join('; '));
  return result.haproxy.ran
    ? pass(`haproxy -c accepted the render (${Math.round(result.haproxy.durationMs ?? 0)} ms)`)
    : fail(`haproxy -c did not run: ${result.haproxy.skipped ?? 'unknown reason'}`);
}

async function verdict(a: Spec, ctx: AssertionContext): Promise<Verdict> {
  const { outcome } = ctx;
  if (a.type === 'rendering_error') return renderingError(a, outcome);
  if (!outcome.ok) return fail(`the render failed: ${formatRenderFailure(outcome.error)}`);
  const text = outputContent(outcome.outputs, a.target);
  const needsText = !['haproxy_valid', 'deterministic', 'jsonpath'].includes(a.type);
  if (needsText && text === undefined) {
    const have = listOutputs(outcome.outputs).map(([t]) => t);
    return fail(`the render has no output ${a.target} (it has: ${have.join(', ')})`);
  }
  const body = text ?? '';
  switch (a.type) {
    case 'contains':
      return contains(a, body, false);
    case 'not_contains':
      return contains(a, body, true);
    case 'equals':
      return equals(a, body);
    case 'match_count':
      return matchCount(a, body);
    case 'match_order':
      return matchOrder(a, body);
    case 'deterministic':
      return deterministic(a, outcome.outputs, ctx.renderAgain);
    case 'jsonpath':
      return jsonpath(a, outcome.context ?? ctx.fallbackContext);
    case 'haproxy_valid':
      return haproxyValid(outcome.outputs, ctx, outcome.sourceMaps);
  }
}

/** Evaluates one assertion of an embedded validation test. */
export async function evaluateAssertion(
  a: Spec,
  index: number,
  ctx: AssertionContext,
): Promise<AssertionResult> {
  const v = await verdict(a, ctx);
  return {
    index,
    type: a.type,
    target: a.target,
    ...(a.description === undefined ? {} : { description: a.description }),
    ...v,
  };
}
