import type { FieldPath } from '#core';
import { compareRefs, keysOf } from './keys.js';
import type { KubeObject, StoredObject } from './types.js';

/** One object of a view with the keys it is indexed by. */
export interface ViewItem {
  readonly namespace: string;
  readonly name: string;
  readonly keys: readonly string[];
  readonly object: StoredObject;
}

const NONE: readonly StoredObject[] = Object.freeze([]);

/** The look-up index below one key prefix: its objects, and the longer prefixes by next key. */
interface PrefixNode {
  readonly objects: StoredObject[];
  next?: Map<string, PrefixNode>;
}

/**
 * The objects of one watched resource at one moment, sorted by namespace/name. Immutable; the
 * look-up index is built on first use, for every key prefix, so partial keys are map hits too.
 */
export class ResourceView {
  /** The objects of each key prefix, key by key (each list made once; no key string per look-up). */
  private byPrefix: Map<string, PrefixNode> | undefined;
  private all: readonly StoredObject[] | undefined;

  constructor(
    readonly paths: readonly FieldPath[],
    readonly items: readonly ViewItem[],
    /** The items' objects, in order, when the caller has them (a store patches its list). */
    objects?: readonly StoredObject[],
  ) {
    this.all = objects;
  }

  /**
   * All objects in order. The array may be shared (with the store, with later views' look-ups):
   * read-only, as what `lookup` gives.
   */
  objects(): readonly StoredObject[] {
    this.all ??= this.items.map((i) => i.object);
    return this.all;
  }

  /** Objects whose first keys equal `keys`, in order. */
  lookup(keys: readonly string[]): readonly StoredObject[] {
    if (keys.length === 0) return this.objects();
    let level: Map<string, PrefixNode> | undefined = (this.byPrefix ??= this.buildIndex());
    let node: PrefixNode | undefined;
    for (const key of keys) {
      node = level?.get(key);
      if (!node) return NONE;
      level = node.next;
    }
    return node?.objects ?? NONE;
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

  private buildIndex(): Map<string, PrefixNode> {
    const index = new Map<string, PrefixNode>();
    for (const item of this.items) {
      let level = index;
      for (let n = 0; n < item.keys.length; n++) {
        const key = item.keys[n] as string;
        let node = level.get(key);
        if (!node) level.set(key, (node = { objects: [] }));
        node.objects.push(item.object);
        if (n + 1 < item.keys.length) level = node.next ??= new Map<string, PrefixNode>();
      }
    }
    return index;
  }
}
