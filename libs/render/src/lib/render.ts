// Render orchestration: one attempt per snapshot view (templates driven in slices, fragments
// kept), quarantine of the objects a failure names, and the synchronous and yielding entries.
import { performance } from 'node:perf_hooks';
import { Context } from 'liquidjs';
import type { CompiledTemplate, CompiledTemplates } from './compile.js';
import { DEFAULT_SLICE_MS, PAUSE, Pacer, driveSync, driveYielding } from './drive.js';
import { fragmentCacheOf, recordingSnapshot, signerFor } from './fragment-globals.js';
import { FragmentSession, type FragmentCache } from './fragments.js';
import { innermostError, problemFrom } from './problems.js';
import { RejectedObjectsError } from './provenance.js';
import { extraText, globalsFor, previousOf } from './render-globals.js';
import { collect, contentHash, type Attempt } from './render-outputs.js';
import { ExcludingSnapshot, refKey } from './snapshot.js';
import type { RenderState } from './state.js';
import { TemplateOutput } from './template-output.js';
import type {
  ObjectRef,
  QuarantinedObject,
  RenderInputs,
  RenderProblem,
  RenderResult,
  RenderSnapshot,
} from './types.js';

/** How many objects one render may quarantine before it gives up. */
export const DEFAULT_MAX_QUARANTINE = 10;

type Gen<T> = Generator<unknown, T, unknown>;

/** The problems of a failed template: every object a provider refused, or the one error. */
function problemsOf(err: unknown, label: string): RenderProblem[] {
  const cause = innermostError(err);
  if (cause instanceof RejectedObjectsError) return [...cause.problems];
  return [problemFrom(err, label, 'render')];
}

function* renderTemplate(
  compiled: CompiledTemplates,
  t: CompiledTemplate,
  globals: object,
  deadline: number,
  keepsOutput: boolean,
): Gen<string> {
  const engine = t.escaped ? compiled.escapedEngine : compiled.plainEngine;
  const options = Number.isFinite(deadline)
    ? { globals, renderLimit: Math.max(0, deadline - performance.now()), sync: true }
    : { globals, sync: true };
  // As `renderSync`, but driven by `drive.ts` (which may give way at a PAUSE), into an emitter
  // that gives the last text again for the same pieces (an incremental render that keeps).
  const ctx = new Context({}, engine.options, options, { liquid: engine });
  const output = new TemplateOutput(keepsOutput ? t : undefined);
  yield* engine.renderer.renderTemplates([...t.parsed], ctx, output);
  return output.text();
}

/** A fragment session over the snapshot, its signatures read from the render's inputs. */
function sessionFor(
  cache: FragmentCache,
  compiled: CompiledTemplates,
  snapshot: RenderSnapshot,
  inputs: RenderInputs,
): FragmentSession {
  const signer = signerFor(
    cache,
    snapshot,
    {
      get extra() {
        return inputs.extra ? { ...compiled.extra, ...inputs.extra } : compiled.extra;
      },
      get controller() {
        return { ...inputs.controller };
      },
      get previous() {
        return previousOf(inputs);
      },
    },
    inputs.reuseOnly === true,
  );
  return new FragmentSession(
    cache,
    snapshot,
    signer,
    inputs.reuseOnly === true,
    settledFor(cache, compiled, inputs),
  );
}

/**
 * The value dependencies that read as when the last successful render settled the cache: the
 * deployed config (`previous.*`) when it is the same object, `extra` when it has the same text.
 */
function settledFor(
  cache: FragmentCache,
  compiled: CompiledTemplates,
  inputs: RenderInputs,
): (settles: 'previous' | 'extra') => boolean {
  const settled = cache.settledInputs;
  if (!settled) return () => false;
  const samePrevious = settled.previous === inputs.previous;
  let sameExtra: boolean | undefined;
  return (settles) => {
    if (settles === 'previous') return samePrevious;
    return (sameExtra ??= settled.extra === extraText(compiled, inputs));
  };
}

function* renderOnce(
  compiled: CompiledTemplates,
  view: RenderSnapshot,
  inputs: RenderInputs,
  cache: FragmentCache | undefined,
  pacer: Pacer | undefined,
): Gen<Attempt> {
  const fragments = cache ? sessionFor(cache, compiled, view, inputs) : undefined;
  const state: RenderState = {
    snapshot: fragments ? recordingSnapshot(view, fragments) : view,
    watchedNames: compiled.watchedNames,
    dirs: compiled.dirs,
    listOwners: new WeakMap(),
    certificates: new Map(),
    crtLists: new Map(),
    generalFiles: new Map(),
    notices: [],
    ...(fragments ? { fragments } : {}),
    ...(pacer ? { pacer } : {}),
  };
  let globals: object;
  try {
    globals = globalsFor(compiled, state, inputs);
  } catch (err) {
    return { ok: false, problems: problemsOf(err, 'context-provider') };
  }
  const rendered = new Map<CompiledTemplate, string>();
  const deadline = performance.now() + (inputs.timeLimitMs ?? Infinity);
  // A render that keeps fragments keeps each template's output pieces too (a dry run does not).
  const keepsOutput = fragments !== undefined && !fragments.reuseOnly;
  for (const t of compiled.templates) {
    if (pacer?.due() === true) yield PAUSE;
    try {
      rendered.set(t, yield* renderTemplate(compiled, t, globals, deadline, keepsOutput));
    } catch (err) {
      return { ok: false, problems: problemsOf(err, t.label) };
    }
  }
  const done = collect(compiled, state, rendered);
  return done.ok && state.notices.length > 0 ? { ...done, notices: state.notices } : done;
}

/**
 * Renders every output from one snapshot. A failure explained by one watched object quarantines
 * that object and renders again without it (bounded); any other failure is returned as a problem.
 */
export function render(
  compiled: CompiledTemplates,
  snapshot: RenderSnapshot,
  inputs: RenderInputs = {},
): RenderResult {
  return driveSync(renderAttempts(compiled, snapshot, inputs, undefined));
}

/** How a yielding render gives way. */
export interface YieldOptions {
  /** Work (ms) between two turns of the event loop; default DEFAULT_SLICE_MS. */
  readonly sliceMs?: number;
}

/**
 * `render`, giving way to the event loop after every `sliceMs` of work (between fragments of a
 * `render … for` list, between templates and between quarantine attempts), so timers and I/O
 * (the leader's lease renewal) run during a long render. Same outputs as `render`. Renders of
 * one compiled config must not overlap (the caller runs one at a time).
 */
export function renderYielding(
  compiled: CompiledTemplates,
  snapshot: RenderSnapshot,
  inputs: RenderInputs = {},
  options: YieldOptions = {},
): Promise<RenderResult> {
  const pacer = new Pacer(options.sliceMs ?? DEFAULT_SLICE_MS);
  return driveYielding(renderAttempts(compiled, snapshot, inputs, pacer), () => pacer.restart());
}

function* renderAttempts(
  compiled: CompiledTemplates,
  snapshot: RenderSnapshot,
  inputs: RenderInputs,
  pacer: Pacer | undefined,
): Gen<RenderResult> {
  const max = inputs.maxQuarantine ?? DEFAULT_MAX_QUARANTINE;
  const cache = inputs.incremental === false ? undefined : fragmentCacheOf(compiled);
  const keeps = cache !== undefined && inputs.reuseOnly !== true;
  if (keeps) cache.begin();
  const excluded = new Set<string>();
  const quarantined: QuarantinedObject[] = [];
  for (let attempts = 1; ; attempts++) {
    const view = excluded.size === 0 ? snapshot : new ExcludingSnapshot(snapshot, excluded);
    if (attempts > 1 && pacer?.due() === true) yield PAUSE;
    const attempt = yield* renderOnce(compiled, view, inputs, cache, pacer);
    if (attempt.ok) {
      if (keeps) {
        cache.sweep();
        cache.settle({ previous: inputs.previous, extra: extraText(compiled, inputs) });
      }
      const hash = contentHash(attempt.outputs, inputs.incremental !== false);
      const notices = attempt.notices ? { notices: attempt.notices } : {};
      return { ok: true, outputs: attempt.outputs, hash, quarantined, attempts, ...notices };
    }
    // Every problem must be explained by an object not yet left out; at most `max` in all.
    const fresh = quarantinable(attempt.problems, excluded);
    if (fresh === undefined)
      return { ok: false, problems: attempt.problems, quarantined, attempts };
    const room = Math.max(0, max - quarantined.length);
    for (const { key, problem, object } of fresh.slice(0, room)) {
      excluded.add(key);
      quarantined.push({ object, problem });
    }
    if (fresh.length > room) {
      const problems = fresh.slice(room).map((f) => f.problem);
      return { ok: false, problems, quarantined, attempts };
    }
  }
}

/** The problems as objects to leave out, or undefined when one is not explained by a new object. */
function quarantinable(
  problems: readonly RenderProblem[],
  excluded: ReadonlySet<string>,
): { key: string; problem: RenderProblem; object: ObjectRef }[] | undefined {
  const out: { key: string; problem: RenderProblem; object: ObjectRef }[] = [];
  for (const problem of problems) {
    const object = problem.object;
    const key = object ? refKey(object) : undefined;
    if (!object || key === undefined || excluded.has(key)) return undefined;
    if (!out.some((o) => o.key === key)) out.push({ key, problem, object });
  }
  return out.length > 0 ? out : undefined;
}
