import { deepFreeze, type FieldPath } from '#core';
import { compareRefs, compileIndexPaths, keysOf, refOf } from './keys.js';
import type { IndexedResourceSpec, KubeObject, StoredObject } from './types.js';
import { ResourceView } from './view.js';

/** What a store keeps per object: the reference, its keys and (full store only) the object. */
export interface StoreEntry {
  readonly ref: string;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly keys: readonly string[];
  readonly object: StoredObject | undefined;
}

/**
 * The objects of one watched resource. A `full` store keeps frozen objects; an `on-demand` store
 * keeps only references (namespace, name, resourceVersion, keys) and leaves objects to a fetch.
 */
export class ResourceStore {
  readonly paths: readonly FieldPath[];
  private readonly entries = new Map<string, StoreEntry>();
  private sorted: StoreEntry[] | undefined;
  private fullView: ResourceView | undefined;
  /** Bumped by every change; snapshots of equal versions are equal. */
  version = 0;

  constructor(readonly spec: IndexedResourceSpec) {
    this.paths = compileIndexPaths(spec.indexBy);
  }

  get size(): number {
    return this.entries.size;
  }

  get keepsObjects(): boolean {
    return this.spec.store === 'full';
  }

  /** Adds or replaces an object; true when it replaced one. */
  upsert(object: KubeObject): boolean {
    const entry = this.entryOf(object);
    const existed = this.entries.has(entry.ref);
    this.entries.set(entry.ref, entry);
    this.changed();
    return existed;
  }

  /** Removes an object; true when it was there. */
  remove(namespace: string | undefined, name: string): boolean {
    const removed = this.entries.delete(refOf(namespace, name));
    if (removed) this.changed();
    return removed;
  }

  /** Replaces all objects in `scope` (a namespace, or undefined for all) by `objects`. */
  reset(scope: string | undefined, objects: readonly KubeObject[]): void {
    for (const [ref, entry] of this.entries) {
      if (scope === undefined || entry.namespace === scope) this.entries.delete(ref);
    }
    for (const object of objects) {
      const entry = this.entryOf(object);
      this.entries.set(entry.ref, entry);
    }
    this.changed();
  }

  /** The entries sorted by namespace/name (cached until the next change). */
  sortedEntries(): readonly StoreEntry[] {
    this.sorted ??= [...this.entries.values()].sort(compareRefs);
    return this.sorted;
  }

  /** The immutable view of a full store (cached until the next change). */
  view(): ResourceView {
    if (!this.keepsObjects) throw new Error('view() is for full stores; resolve on-demand entries');
    this.fullView ??= new ResourceView(
      this.paths,
      this.sortedEntries().map((e) => ({ ...e, object: e.object! })),
    );
    return this.fullView;
  }

  private changed(): void {
    this.version++;
    this.sorted = undefined;
    this.fullView = undefined;
  }

  private entryOf(object: KubeObject): StoreEntry {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name;
    return {
      ref: refOf(namespace, name),
      namespace,
      name,
      resourceVersion: object.metadata.resourceVersion ?? '',
      keys: keysOf(object, this.paths),
      object: this.keepsObjects ? deepFreeze(object) : undefined,
    };
  }
}
