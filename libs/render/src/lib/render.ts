import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Context } from 'liquidjs';
import type { CompiledTemplate, CompiledTemplates } from './compile.js';
import { DEFAULT_SLICE_MS, PAUSE, Pacer, driveSync, driveYielding } from './drive.js';
import {
  fragmentCacheOf,
  recordGlobals,
  recordingList,
  recordingSnapshot,
  signerFor,
} from './fragment-globals.js';
import { FragmentSession, type FragmentCache } from './fragments.js';
import { previousContext } from './previous.js';
import { innermostError, problemFrom } from './problems.js';
import { RejectedObjectsError } from './provenance.js';
import { ExcludingSnapshot, refKey } from './snapshot.js';
import { bindState, type RenderState } from './state.js';
import { TemplateOutput } from './template-output.js';
import type {
  ContextProvider,
  ObjectRef,
  QuarantinedObject,
  RenderInputs,
  RenderNotice,
  RenderProblem,
  RenderResult,
  RenderSnapshot,
  RenderedOutputs,
} from './types.js';

/** How many objects one render may quarantine before it gives up. */
export const DEFAULT_MAX_QUARANTINE = 10;

type Gen<T> = Generator<unknown, T, unknown>;

type Attempt =
  | {
      readonly ok: true;
      readonly outputs: RenderedOutputs;
      readonly notices?: readonly RenderNotice[];
    }
  | { readonly ok: false; readonly problems: readonly RenderProblem[] };

function resourcesOf(state: RenderState): Record<string, unknown> {
  const resources: Record<string, unknown> = {};
  const session = state.fragments;
  for (const watched of state.watchedNames) {
    let list: object[] | undefined;
    let recording: readonly object[] | undefined;
    // Own, lazy properties: a render pays only for the lists its templates read.
    Object.defineProperty(resources, watched, {
      enumerable: true,
      get: () => {
        if (!list) {
          list = [...state.snapshot.list(watched)];
          state.listOwners.set(list, watched);
        }
        if (!session?.recording) return list;
        // Inside a fragment: the list records whether its contents are read.
        if (!recording) {
          recording = recordingList(list, watched, session);
          state.listOwners.set(recording, watched);
        }
        return recording;
      },
    });
  }
  return resources;
}

const PREVIOUS = new WeakMap<object, Record<string, unknown>>();
const NO_PREVIOUS = previousContext(undefined);

/** The `previous` variable, read once per deployed config (templates cannot change it). */
function previousOf(inputs: RenderInputs): Record<string, unknown> {
  if (!inputs.previous) return NO_PREVIOUS;
  let value = PREVIOUS.get(inputs.previous);
  if (!value) PREVIOUS.set(inputs.previous, (value = previousContext(inputs.previous)));
  return value;
}

function providerFailure(provider: ContextProvider, err: unknown): Error {
  if (err instanceof RejectedObjectsError) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new Error(`context provider ${provider.name} failed: ${reason}`, { cause: err });
}

/** A lazy provider's value: computed on first read in this render attempt, then kept. */
function defineLazy(globals: object, provider: ContextProvider, compute: () => unknown): void {
  let state: { value: unknown } | { error: Error } | undefined;
  Object.defineProperty(globals, provider.name, {
    enumerable: true,
    configurable: true,
    get: () => {
      if (!state) {
        try {
          state = { value: compute() };
        } catch (err) {
          state = { error: providerFailure(provider, err) };
        }
      }
      if ('error' in state) throw state.error;
      return state.value;
    },
  });
}

function globalsFor(
  compiled: CompiledTemplates,
  state: RenderState,
  inputs: RenderInputs,
): Record<string, unknown> {
  const extra = inputs.extra ? { ...compiled.extra, ...inputs.extra } : compiled.extra;
  const globals: Record<string, unknown> = {
    resources: resourcesOf(state),
    controller: {
      haproxy_pods: [],
      is_leader: false,
      config_version: compiled.configVersion,
      ...inputs.controller,
    },
    extra,
    previous: previousOf(inputs),
  };
  const context = {
    extra,
    watched: state.watchedNames,
    incremental: inputs.incremental !== false,
    notice: (n: RenderNotice): void => {
      state.notices.push(n);
    },
  };
  for (const provider of providersOf(compiled, inputs)) {
    const compute = (): unknown => provider.provide(state.snapshot, context);
    if (provider.lazy) {
      defineLazy(globals, provider, compute);
      continue;
    }
    try {
      globals[provider.name] = compute();
    } catch (err) {
      throw providerFailure(provider, err);
    }
  }
  if (state.fragments) recordGlobals(globals, state.fragments);
  bindState(globals, state);
  return globals;
}

/** The config's providers (built-in and registered at compile), then any given per render. */
function providersOf(compiled: CompiledTemplates, inputs: RenderInputs): ContextProvider[] {
  const names = new Set(compiled.providers.map((p) => p.name));
  return [...compiled.providers, ...(inputs.providers ?? []).filter((p) => !names.has(p.name))];
}

/** The problems of a failed template: every object a provider refused, or the one error. */
function problemsOf(err: unknown, label: string): RenderProblem[] {
  const cause = innermostError(err);
  if (cause instanceof RejectedObjectsError) return [...cause.problems];
  return [problemFrom(err, label, 'render')];
}

type Section = 'maps' | 'files' | 'sslCertificates' | 'crtLists';

/** The last record of each output section, by compiled config (the same entries give it again). */
const LAST_SECTIONS = new WeakMap<CompiledTemplates, Map<Section, Record<string, string>>>();

/**
 * `map` as a record in name order. When it holds the same entries (same names, the same
 * strings) as the last record of this section, that record itself: a one-Ingress change among
 * 500 certificates is not sorted again.
 */
function sorted(
  compiled: CompiledTemplates,
  section: Section,
  map: ReadonlyMap<string, string>,
): Record<string, string> {
  let last = LAST_SECTIONS.get(compiled);
  if (!last) LAST_SECTIONS.set(compiled, (last = new Map<Section, Record<string, string>>()));
  const was = last.get(section);
  if (was && sameEntries(map, was)) return was;
  const record = Object.fromEntries(
    [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  Object.freeze(record);
  last.set(section, record);
  return record;
}

function sameEntries(map: ReadonlyMap<string, string>, record: Record<string, string>): boolean {
  let n = 0;
  for (const name in record) {
    if (map.get(name) !== record[name]) return false;
    n++;
  }
  return n === map.size;
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

function collect(
  compiled: CompiledTemplates,
  state: RenderState,
  rendered: ReadonlyMap<CompiledTemplate, string>,
): Attempt {
  const by = (kind: CompiledTemplate['kind']): Map<string, string> =>
    new Map(
      compiled.templates.filter((t) => t.kind === kind).map((t) => [t.file, rendered.get(t) ?? '']),
    );
  const certs = by('cert');
  for (const [name, content] of state.certificates) {
    if (certs.has(name) && certs.get(name) !== content) {
      const message = `certificate ${name} is both a sslCertificates template and registered with other content`;
      return {
        ok: false,
        problems: [{ code: 'registration-conflict', template: `cert:${name}`, message }],
      };
    }
    certs.set(name, content);
  }
  const files = by('file');
  for (const name of state.crtLists.keys()) {
    if (files.has(name)) {
      const message = `crt-list ${name} has the name of a general file (both live in general storage)`;
      return {
        ok: false,
        problems: [{ code: 'registration-conflict', template: `file:${name}`, message }],
      };
    }
  }
  const haproxy = compiled.templates.find((t) => t.kind === 'haproxy');
  return {
    ok: true,
    outputs: {
      haproxyConfig: haproxy ? (rendered.get(haproxy) ?? '') : '',
      maps: sorted(compiled, 'maps', by('map')),
      files: sorted(compiled, 'files', files),
      sslCertificates: sorted(compiled, 'sslCertificates', certs),
      crtLists: sorted(compiled, 'crtLists', state.crtLists),
    },
  };
}

/** The render's `extra` as text (what fragments that read it depend on). */
function extraText(compiled: CompiledTemplates, inputs: RenderInputs): string {
  return JSON.stringify(inputs.extra ? { ...compiled.extra, ...inputs.extra } : compiled.extra);
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

/** The digests of the outputs last hashed, by output, with the content each was taken of. */
let lastDigests = new Map<string, { readonly content: string; readonly digest: string }>();

/** sha256 (hex) of one output; an output hashed last time with the same content is not again. */
function digestOf(
  key: string,
  content: string,
  next: Map<string, { readonly content: string; readonly digest: string }> | undefined,
): string {
  const was = next ? lastDigests.get(key) : undefined;
  // the same string (a certificate replayed from a kept fragment) compares by reference
  const digest =
    was && was.content === content
      ? was.digest
      : createHash('sha256').update(content).digest('hex');
  next?.set(key, { content, digest });
  return digest;
}

/**
 * sha256 (hex) over every output in a fixed order, each output by its own sha256 (an output
 * that did not change since the last hash is not hashed again, unless `reuse` is false): equal
 * outputs, equal hash.
 */
export function contentHash(outputs: RenderedOutputs, reuse = true): string {
  // `reuse: false` (a full render): every output hashed afresh, nothing kept
  const next = reuse
    ? new Map<string, { readonly content: string; readonly digest: string }>()
    : undefined;
  const parts: string[] = ['haproxy.cfg', digestOf('haproxy.cfg', outputs.haproxyConfig, next)];
  const sections = [
    ['maps', outputs.maps],
    ['files', outputs.files],
    ['sslCertificates', outputs.sslCertificates],
    ['crtLists', outputs.crtLists],
  ] as const;
  for (const [section, record] of sections) {
    for (const [name, content] of Object.entries(record))
      parts.push(section, name, digestOf(`${section}/${name}`, content, next));
  }
  if (next) lastDigests = next;
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
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
