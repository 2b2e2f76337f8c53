import type { FieldPath } from '#core';
import { compareRefs, joinKeys, keysOf } from './keys.js';
import type { KubeObject, StoredObject } from './types.js';

/** One object of a view with the keys it is indexed by. */
export interface ViewItem {
  readonly namespace: string;
  readonly name: string;
  readonly keys: readonly string[];
  readonly object: StoredObject;
}

const NONE: readonly StoredObject[] = Object.freeze([]);

/**
 * The objects of one watched resource at one moment, sorted by namespace/name. Immutable; the
 * look-up index is built on first use, for every key prefix, so partial keys are map hits too.
 */
export class ResourceView {
  /** The objects of each key prefix, by `<count>:<joined keys>` (each list made once). */
  private byPrefix: Map<string, StoredObject[]> | undefined;
  private all: readonly StoredObject[] | undefined;

  constructor(
    readonly paths: readonly FieldPath[],
    readonly items: readonly ViewItem[],
  ) {}

  /** All objects in order. */
  objects(): readonly StoredObject[] {
    this.all ??= Object.freeze(this.items.map((i) => i.object));
    return this.all;
  }

  /** Objects whose first keys equal `keys`, in order. */
  lookup(keys: readonly string[]): readonly StoredObject[] {
    if (keys.length === 0) return this.objects();
    this.byPrefix ??= this.buildIndex();
    return this.byPrefix.get(`${keys.length}:${joinKeys(keys)}`) ?? NONE;
  }

  /** A new view with one object added, replaced or removed (the overlay of a dry-run). */
  withChange(operation: 'create' | 'update' | 'delete', object: KubeObject): ResourceView {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name;
    const rest = this.items.filter((i) => i.namespace !== namespace || i.name !== name);
    if (operation === 'delete') return new ResourceView(this.paths, rest);
    const item: ViewItem = {
      namespace,
      name,
      keys: keysOf(object, this.paths),
      object: object,
    };
    const at = rest.findIndex((i) => compareRefs(i, item) > 0);
    const items = at < 0 ? [...rest, item] : [...rest.slice(0, at), item, ...rest.slice(at)];
    return new ResourceView(this.paths, items);
  }

  private buildIndex(): Map<string, StoredObject[]> {
    const index = new Map<string, StoredObject[]>();
    for (const item of this.items) {
      for (let n = 1; n <= item.keys.length; n++) {
        const key = `${n}:${joinKeys(item.keys, n)}`;
        const bucket = index.get(key);
        if (bucket) bucket.push(item.object);
        else index.set(key, [item.object]);
      }
    }
    return index;
  }
}
