// How a render's globals tell the fragment cache what a fragment read: each top-level name, each
// `resources.<name>` list whose elements are read, each deployed backend of `previous.backends`.
import { FragmentCache, listKey, type FragmentSession, type Signer } from './fragments.js';
import { field } from './liquid-values.js';
import { deployedBackendToken } from './previous.js';
import type { RenderSnapshot } from './types.js';

const CACHES = new WeakMap<object, FragmentCache>();

/** The fragment cache kept for one compiled config (created on first use). */
export function fragmentCacheOf(compiled: object): FragmentCache {
  let cache = CACHES.get(compiled);
  if (!cache) CACHES.set(compiled, (cache = new FragmentCache()));
  return cache;
}

/** A snapshot whose look-ups go through the session (memoised, recorded). */
export function recordingSnapshot(base: RenderSnapshot, session: FragmentSession): RenderSnapshot {
  return {
    list: (watched) => base.list(watched),
    lookup: (watched, keys) => session.lookup(watched, keys),
  };
}

// Keys liquidjs reads from any value it handles (not a read of the list's contents).
const HANDLE_KEYS = new Set<PropertyKey>([
  'toLiquid',
  'valueOf',
  'then',
  'next',
  Symbol.toPrimitive,
]);

/**
 * The list as a fragment sees it: passing it on (to `get`, `fetch`, `server_slots`) reads
 * nothing; reading its length or elements makes the fragment depend on the whole list.
 */
export function recordingList(
  list: readonly object[],
  watched: string,
  session: FragmentSession,
): readonly object[] {
  const key = listKey(watched);
  const read = (): void => session.readValue(key);
  return new Proxy(list, {
    get(target, prop, receiver) {
      if (!HANDLE_KEYS.has(prop)) read();
      return Reflect.get(target, prop, receiver) as unknown;
    },
    has(target, prop) {
      read();
      return Reflect.has(target, prop);
    },
    ownKeys(target) {
      read();
      return Reflect.ownKeys(target);
    },
    getOwnPropertyDescriptor(target, prop) {
      read();
      return Reflect.getOwnPropertyDescriptor(target, prop);
    },
  });
}

// Deployed backends are read once per deployed config (and kept while it is): their text once.
const JSON_OF = new WeakMap<object, string>();

function json(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  let text = JSON_OF.get(value);
  if (text === undefined) JSON_OF.set(value, (text = JSON.stringify(value)));
  return text;
}

/** The recording `previous.backends` of a render: the deployed backends and the session. */
const RECORDING_BACKENDS = new WeakMap<
  object,
  { readonly backends: Record<string, unknown>; readonly session: FragmentSession }
>();

/**
 * `previous.backends[name]` as typed code reads it (a filter given `previous.backends`): one
 * recorded read of that backend, as the template's own read records it, without the proxy's
 * traps; any other value is read leniently.
 */
export function deployedBackend(backends: unknown, name: string): unknown {
  const recording =
    backends !== null && typeof backends === 'object'
      ? RECORDING_BACKENDS.get(backends)
      : undefined;
  if (!recording) return field(backends, name);
  recording.session.readValue(`previous.backend:${name}`);
  return Object.hasOwn(recording.backends, name) ? recording.backends[name] : undefined;
}

/** `previous` with each part recorded when read: the config, the maps, one backend at a time. */
function recordingPrevious(
  previous: Record<string, unknown>,
  session: FragmentSession,
): Record<string, unknown> {
  const backends = (previous['backends'] ?? {}) as Record<string, unknown>;
  const byName = new Proxy(backends, {
    get(target, prop, receiver) {
      if (typeof prop === 'string') session.readValue(`previous.backend:${prop}`);
      return Reflect.get(target, prop, receiver) as unknown;
    },
    has(target, prop) {
      if (typeof prop === 'string') session.readValue(`previous.backend:${prop}`);
      return Reflect.has(target, prop);
    },
    getOwnPropertyDescriptor(target, prop) {
      if (typeof prop === 'string') session.readValue(`previous.backend:${prop}`);
      return Reflect.getOwnPropertyDescriptor(target, prop);
    },
    ownKeys(target) {
      session.readValue('previous.backends');
      return Reflect.ownKeys(target);
    },
  });
  RECORDING_BACKENDS.set(byName, { backends, session });
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(previous)) {
    Object.defineProperty(out, key, {
      enumerable: true,
      get: () => {
        if (key === 'backends') return byName;
        session.readValue(`previous.${key}`);
        return previous[key];
      },
    });
  }
  return out;
}

/**
 * Redefines every top-level name but `resources` (whose lists record themselves) as a getter that
 * records the read; `previous` records per part. Reads outside a fragment cost a check.
 */
export function recordGlobals(globals: Record<string, unknown>, session: FragmentSession): void {
  for (const name of Object.keys(globals)) {
    if (name === 'resources') continue;
    const descriptor = Object.getOwnPropertyDescriptor(globals, name);
    if (!descriptor) continue;
    const value = (): unknown => (descriptor.get ? descriptor.get() : descriptor.value);
    let previous: Record<string, unknown> | undefined;
    const key = `global:${name}`;
    Object.defineProperty(globals, name, {
      enumerable: true,
      get: () => {
        if (name === 'previous')
          return (previous ??= recordingPrevious(value() as Record<string, unknown>, session));
        session.readValue(key);
        return value();
      },
    });
  }
}

/**
 * The signatures of one render's value dependencies: `extra` and `controller` by content, the
 * deployed config by its text and backends one by one (a token per backend's server lines), a
 * list by its elements (a token), any other top-level name (a context provider's value) by a
 * fresh value, which never matches.
 */
export function signerFor(
  cache: FragmentCache,
  snapshot: RenderSnapshot,
  values: { extra: unknown; controller: unknown; previous: Record<string, unknown> },
  peek = false,
): Signer {
  const backends = (values.previous['backends'] ?? {}) as Record<string, unknown>;
  return (key) => {
    if (key === 'global:extra') return json(values.extra);
    if (key === 'global:controller') return json(values.controller);
    if (key.startsWith('list:')) {
      const watched = key.slice('list:'.length);
      return cache.listToken(watched, snapshot.list(watched), peek);
    }
    if (key.startsWith('previous.backend:')) {
      const name = key.slice('previous.backend:'.length);
      return (
        deployedBackendToken(backends, name) ??
        json(Object.hasOwn(backends, name) ? backends[name] : undefined)
      );
    }
    if (key === 'previous.backends') return json(backends);
    if (key.startsWith('previous.')) {
      const value = values.previous[key.slice('previous.'.length)];
      return typeof value === 'string' ? value : json(value);
    }
    return {};
  };
}
