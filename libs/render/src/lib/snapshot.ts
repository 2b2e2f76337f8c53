import { parseFieldPath, readFieldPath, type FieldPath } from '#core';
import type { ObjectRef, RenderSnapshot } from './types.js';

const SEP = '\u0000';

function metaOf(obj: object): { namespace: string; name: string } {
  const meta = (obj as { metadata?: { namespace?: unknown; name?: unknown } }).metadata;
  return {
    namespace: typeof meta?.namespace === 'string' ? meta.namespace : '',
    name: typeof meta?.name === 'string' ? meta.name : '',
  };
}

/** Orders objects by namespace, then name (the order templates see). */
export function compareObjects(a: object, b: object): number {
  const ma = metaOf(a);
  const mb = metaOf(b);
  if (ma.namespace !== mb.namespace) return ma.namespace < mb.namespace ? -1 : 1;
  if (ma.name !== mb.name) return ma.name < mb.name ? -1 : 1;
  return 0;
}

/** The reference of a watched object, as errors and quarantine name it. */
export function objectRef(watched: string, obj: object): ObjectRef {
  const { namespace, name } = metaOf(obj);
  const kind = (obj as { kind?: unknown }).kind;
  return {
    watched,
    kind: typeof kind === 'string' && kind !== '' ? kind : watched,
    ...(namespace === '' ? {} : { namespace }),
    name,
  };
}

/** A stable string key for an object reference. */
export function refKey(ref: ObjectRef): string {
  return [ref.watched, ref.namespace ?? '', ref.name].join(SEP);
}

function keyText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

class WatchedStore {
  private readonly byPrefix = new Map<number, Map<string, object[]>>();
  readonly sorted: readonly object[];

  constructor(
    private readonly paths: readonly FieldPath[],
    objects: readonly object[],
  ) {
    this.sorted = [...objects].sort(compareObjects);
  }

  lookup(keys: readonly string[]): readonly object[] {
    const n = Math.min(keys.length, this.paths.length);
    if (keys.length > this.paths.length) return [];
    let index = this.byPrefix.get(n);
    if (!index) {
      index = new Map();
      for (const obj of this.sorted) {
        const k = this.paths
          .slice(0, n)
          .map((p) => keyText(readFieldPath(obj, p)))
          .join(SEP);
        const bucket = index.get(k);
        if (bucket) bucket.push(obj);
        else index.set(k, [obj]);
      }
      this.byPrefix.set(n, index);
    }
    return index.get(keys.slice(0, n).join(SEP)) ?? [];
  }
}

/**
 * A simple in-memory implementation of the snapshot port, indexed by each watched resource's
 * `indexBy` paths. Stands in for the IndexModule's snapshot in tests and offline rendering.
 */
export class InMemorySnapshot implements RenderSnapshot {
  private readonly stores = new Map<string, WatchedStore>();

  constructor(
    indexBy: Readonly<Record<string, readonly string[]>>,
    objects: Readonly<Record<string, readonly object[]>>,
  ) {
    for (const [watched, texts] of Object.entries(indexBy)) {
      const paths = texts.map((t) => {
        const p = parseFieldPath(t);
        if (!p) throw new TypeError(`indexBy of ${watched}: not a field path: ${t}`);
        return p;
      });
      this.stores.set(watched, new WatchedStore(paths, objects[watched] ?? []));
    }
  }

  list(watched: string): readonly object[] {
    return this.stores.get(watched)?.sorted ?? [];
  }

  lookup(watched: string, keys: readonly string[]): readonly object[] {
    return this.stores.get(watched)?.lookup(keys) ?? [];
  }
}

/** A view of a snapshot without the quarantined objects (by watched name, namespace and name). */
export class ExcludingSnapshot implements RenderSnapshot {
  constructor(
    private readonly base: RenderSnapshot,
    private readonly excluded: ReadonlySet<string>,
  ) {}

  private keep(watched: string, objects: readonly object[]): readonly object[] {
    if (this.excluded.size === 0) return objects;
    return objects.filter((o) => !this.excluded.has(refKey(objectRef(watched, o))));
  }

  list(watched: string): readonly object[] {
    return this.keep(watched, this.base.list(watched));
  }

  lookup(watched: string, keys: readonly string[]): readonly object[] {
    return this.keep(watched, this.base.lookup(watched, keys));
  }
}
