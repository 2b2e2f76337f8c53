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
