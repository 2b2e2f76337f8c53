import type { DeepReadonly, TemplateConfigSpec, ValidationTestSpec } from '#core';
import { evaluateAssertion, type AssertionResult } from './assertions.js';
import { mapLimited } from './limiter.js';
import type { RenderedOutputs, SourceMaps } from './outputs.js';
import {
  formatRenderFailure,
  type FixtureRenderer,
  type FixtureRenderRequest,
} from './render-port.js';
import type { ValidationResult } from './validate.js';

/** Name of the test whose fixtures and extraContext every other test shares. */
export const GLOBAL_TEST = '_global';

/** The outcome of one embedded test. */
export interface TestResult {
  readonly name: string;
  readonly description?: string;
  readonly passed: boolean;
  readonly durationMs: number;
  /** Set when the render failed (assertions other than rendering_error then fail). */
  readonly renderError?: string;
  readonly assertions: readonly AssertionResult[];
}

/** Every test's outcome, in name order, with totals. */
export interface TestReport {
  readonly passed: boolean;
  readonly tests: readonly TestResult[];
  readonly totals: {
    tests: number;
    failedTests: number;
    assertions: number;
    failedAssertions: number;
  };
}

export interface TestRunOptions {
  /** Run only this test. */
  readonly only?: string;
  /** Tests run at once (each may start a `haproxy -c`, bounded separately by the checker). */
  readonly workers?: number;
  readonly validate: (outputs: RenderedOutputs, maps?: SourceMaps) => Promise<ValidationResult>;
}

type Spec = DeepReadonly<TemplateConfigSpec>;
type Test = DeepReadonly<ValidationTestSpec>;

const identity = (o: unknown): string => {
  const r = o as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { namespace?: unknown; name?: unknown };
  };
  return JSON.stringify([r.apiVersion, r.kind, r.metadata?.namespace, r.metadata?.name]);
};

/** `_global` fixtures plus the test's own; a test object replaces a global one of the same identity. */
export function mergeFixtures(
  global: Test['fixtures'] | undefined,
  own: Test['fixtures'],
): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const name of new Set([...Object.keys(global ?? {}), ...Object.keys(own)])) {
    const mine = own[name] ?? [];
    const ids = new Set(mine.map(identity));
    out[name] = [...(global?.[name] ?? []).filter((o) => !ids.has(identity(o))), ...mine];
  }
  return out;
}

/** The request one test renders with: merged fixtures and extra context. */
export function testRequest(spec: Spec, name: string): FixtureRenderRequest {
  const global = name === GLOBAL_TEST ? undefined : spec.validationTests[GLOBAL_TEST];
  const test = spec.validationTests[name];
  if (!test) throw new RangeError(`no validation test ${name}`);
  return {
    fixtures: mergeFixtures(global?.fixtures, test.fixtures),
    extraContext: {
      ...spec.templatingSettings.extraContext,
      ...global?.extraContext,
      ...test.extraContext,
    },
  };
}

/** A plain render context (`resources`, `extra`, `controller`) for renderers that return none. */
export function fallbackContext(req: FixtureRenderRequest): unknown {
  return { resources: req.fixtures, extra: req.extraContext, controller: { haproxy_pods: [] } };
}

/** Names of the tests to run: all but an assertion-less `_global`, or just `only`. */
export function selectTests(spec: Spec, only?: string): string[] {
  const names = Object.keys(spec.validationTests).sort();
  if (only !== undefined) return names.includes(only) ? [only] : [];
  return names.filter(
    (n) => n !== GLOBAL_TEST || (spec.validationTests[n]?.assertions.length ?? 0) > 0,
  );
}

async function runOne(
  spec: Spec,
  name: string,
  renderer: FixtureRenderer,
  opts: TestRunOptions,
): Promise<TestResult> {
  const started = performance.now();
  const test = spec.validationTests[name];
  const req = testRequest(spec, name);
  const outcome = await renderer.render(req);
  const ctx = {
    outcome,
    renderAgain: () => renderer.render(req),
    validate: opts.validate,
    fallbackContext: fallbackContext(req),
  };
  const assertions: AssertionResult[] = [];
  for (const [i, a] of (test?.assertions ?? []).entries())
    assertions.push(await evaluateAssertion(a, i, ctx));
  const renderOk = outcome.ok || assertions.some((a) => a.type === 'rendering_error');
  return {
    name,
    ...(test?.description === undefined ? {} : { description: test.description }),
    passed: renderOk && assertions.every((a) => a.passed),
    durationMs: performance.now() - started,
    ...(outcome.ok ? {} : { renderError: formatRenderFailure(outcome.error) }),
    assertions,
  };
}

/** Runs the config's embedded validation tests (or one of them) with bounded parallelism. */
export async function runValidationTests(
  spec: Spec,
  renderer: FixtureRenderer,
  opts: TestRunOptions,
): Promise<TestReport> {
  const names = selectTests(spec, opts.only);
  const tests = await mapLimited(names, opts.workers ?? 1, (n) => runOne(spec, n, renderer, opts));
  const all = tests.flatMap((t) => t.assertions);
  const failedTests = tests.filter((t) => !t.passed).length;
  return {
    passed: failedTests === 0,
    tests,
    totals: {
      tests: tests.length,
      failedTests,
      assertions: all.length,
      failedAssertions: all.filter((a) => !a.passed).length,
    },
  };
}
