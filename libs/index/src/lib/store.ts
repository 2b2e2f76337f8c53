import { deepFreeze, type FieldPath } from '#core';
import { compareRefs, compileIndexPaths, keysOf, refOf } from './keys.js';
import { compileQuietPaths, materialDigest, sameMaterial } from './material.js';
import { sharedWith } from './share.js';
import type { IndexedResourceSpec, KubeObject, StoredObject } from './types.js';
import { ResourceView, type ViewItem } from './view.js';

/** What a store keeps per object: the reference, its keys and (full store only) the object. */
export interface StoreEntry {
  readonly ref: string;
  readonly namespace: string;
  readonly name: string;
  readonly resourceVersion: string;
  readonly keys: readonly string[];
  readonly object: StoredObject | undefined;
  /** On-demand stores only (they keep no object): the digest of the object's material fields. */
  readonly digest?: string;
}

/** The first index of sorted `entries` not before `ref` (namespace/name order). */
function boundOf(entries: readonly StoreEntry[], ref: StoreEntry): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareRefs(entries[mid] as StoreEntry, ref) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What an upsert did; `quiet` when only quiet fields changed (stored, but no render needed). */
export type UpsertResult = 'added' | 'modified' | 'quiet';

/**
 * The objects of one watched resource. A `full` store keeps frozen objects; an `on-demand` store
 * keeps only references (namespace, name, resourceVersion, keys) and leaves objects to a fetch.
 */
export class ResourceStore {
  readonly paths: readonly FieldPath[];
  private readonly quiet: readonly FieldPath[];
  private readonly entries = new Map<string, StoreEntry>();
  private sorted: StoreEntry[] | undefined;
  /** The objects of `sorted`, in its order (a full store's; patched with it). */
  private sortedObjects: StoredObject[] | undefined;
  private fullView: ResourceView | undefined;
  /** Bumped by every change; snapshots of equal versions are equal. */
  version = 0;

  constructor(readonly spec: IndexedResourceSpec) {
    this.paths = compileIndexPaths(spec.indexBy);
    this.quiet = compileQuietPaths(spec.quietPaths);
  }

  get size(): number {
    return this.entries.size;
  }

  get keepsObjects(): boolean {
    return this.spec.store === 'full';
  }

  /** Adds or replaces an object, and says whether anything but quiet fields changed. */
  upsert(object: KubeObject): UpsertResult {
    const old = this.entries.get(refOf(object.metadata.namespace ?? '', object.metadata.name));
    const entry = this.entryOf(object, old);
    this.entries.set(entry.ref, entry);
    this.changed(old, entry);
    if (!old) return 'added';
    return this.onlyQuiet(old, entry) ? 'quiet' : 'modified';
  }

  private onlyQuiet(old: StoreEntry, entry: StoreEntry): boolean {
    if (old.digest !== undefined) return old.digest === entry.digest;
    return sameMaterial(old.object, entry.object, this.quiet);
  }

  /** Removes an object; true when it was there. */
  remove(namespace: string | undefined, name: string): boolean {
    const old = this.entries.get(refOf(namespace, name));
    const removed = this.entries.delete(refOf(namespace, name));
    if (removed) this.changed(old);
    return removed;
  }

  /** Replaces all objects in `scope` (a namespace, or undefined for all) by `objects`. */
  reset(scope: string | undefined, objects: readonly KubeObject[]): void {
    const olds = new Map<string, StoreEntry>();
    for (const [ref, entry] of this.entries) {
      if (scope === undefined || entry.namespace === scope) {
        olds.set(ref, entry);
        this.entries.delete(ref);
      }
    }
    for (const object of objects) {
      const entry = this.entryOf(
        object,
        olds.get(refOf(object.metadata.namespace ?? '', object.metadata.name)),
      );
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
    // A full store's entries all hold their object: they are the view's items as they are (no
    // second object per watched object).
    const items = this.sortedEntries() as readonly ViewItem[];
    this.sortedObjects ??= items.map((i) => i.object);
    this.fullView ??= new ResourceView(this.paths, items, this.sortedObjects);
    return this.fullView;
  }

  /**
   * After a change; `old` → `entry` (one object added, replaced or removed): the sorted entries
   * are patched in a copy (views handed out keep theirs) instead of sorted again, and so are
   * their objects (a full store's view lists them: not mapped from 10,000 entries again).
   */
  private changed(old?: StoreEntry, entry?: StoreEntry): void {
    this.version++;
    this.fullView = undefined;
    const sorted = this.sorted;
    const objects = this.sortedObjects;
    this.sorted = undefined;
    this.sortedObjects = undefined;
    if (!sorted || (!old && !entry)) return;
    const at = boundOf(sorted, (old ?? entry) as StoreEntry);
    if (old && sorted[at] !== old) return;
    const next = sorted.slice();
    const nextObjects = objects?.slice();
    if (old && entry) {
      next[at] = entry;
      if (nextObjects) nextObjects[at] = entry.object as StoredObject;
    } else if (old) {
      next.splice(at, 1);
      nextObjects?.splice(at, 1);
    } else if (entry) {
      next.splice(at, 0, entry);
      nextObjects?.splice(at, 0, entry.object as StoredObject);
    }
    this.sorted = next;
    this.sortedObjects = nextObjects;
  }

  /** The entry of an object; a full store keeps it with the parts it shares with `old`'s. */
  private entryOf(object: KubeObject, old?: StoreEntry): StoreEntry {
    const namespace = object.metadata.namespace ?? '';
    const name = object.metadata.name;
    if (this.keepsObjects && old?.object) object = sharedWith(old.object, object) as KubeObject;
    return {
      ref: refOf(namespace, name),
      namespace,
      name,
      resourceVersion: object.metadata.resourceVersion ?? '',
      keys: keysOf(object, this.paths),
      object: this.keepsObjects ? deepFreeze(object) : undefined,
      ...(this.keepsObjects ? {} : { digest: materialDigest(object, this.quiet) }),
    };
  }
}
