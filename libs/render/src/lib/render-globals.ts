// The template context of one render attempt: `resources` (lazy lists, recorded inside
// fragments), `controller`, `extra`, `previous` and the context providers' values.
import type { CompiledTemplates } from './compile.js';
import { recordGlobals, recordingList } from './fragment-globals.js';
import { previousContext } from './previous.js';
import { RejectedObjectsError } from './provenance.js';
import { bindState, type RenderState } from './state.js';
import type { ContextProvider, RenderInputs, RenderNotice } from './types.js';

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
export function previousOf(inputs: RenderInputs): Record<string, unknown> {
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

/** The globals every template of one render attempt reads. */
export function globalsFor(
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

/** The render's `extra` as text (what fragments that read it depend on). */
export function extraText(compiled: CompiledTemplates, inputs: RenderInputs): string {
  return JSON.stringify(inputs.extra ? { ...compiled.extra, ...inputs.extra } : compiled.extra);
}
