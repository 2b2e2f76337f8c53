import { DEFAULT_CACHE_OPTIONS, OnDemandCache, type CacheOptions } from './cache.js';
import { Snapshot } from './snapshot.js';
import { ResourceStore } from './store.js';
import type {
  IndexedResourceSpec,
  IndexSnapshot,
  KubeObject,
  ObjectFetchPort,
  ResourceSink,
} from './types.js';
import { ResourceView } from './view.js';

export interface ResourceIndexOptions {
  readonly fetch?: ObjectFetchPort;
  readonly cache?: Partial<CacheOptions>;
  readonly now?: () => number;
}

/** What `configure` did, by watched resource name. */
export interface ConfigureResult {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

/** What changed in a watched resource: one object, or a whole (re-)list. */
export interface IndexChange {
  readonly resource: string;
  readonly change: 'added' | 'modified' | 'deleted' | 'relisted';
  readonly object?: { readonly namespace?: string; readonly name: string };
}

/** Called after every change of the index. */
export type ChangeListener = (change: IndexChange) => void;

/**
 * Every watched resource's store, fed by watch through the ResourceSink port. Synced once each
 * configured resource has finished its first list; snapshots are immutable and self-contained.
 */
export class ResourceIndex implements ResourceSink {
  private readonly stores = new Map<string, ResourceStore>();
  private readonly listedOnce = new Set<string>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly listedListeners = new Set<(resource: string) => void>();
  private readonly configuredListeners = new Set<(result: ConfigureResult) => void>();
  private readonly cache: OnDemandCache;
  private version = 0;

  constructor(options: ResourceIndexOptions = {}) {
    this.cache = new OnDemandCache(
      options.fetch,
      { ...DEFAULT_CACHE_OPTIONS, ...options.cache },
      options.now,
    );
  }

  /** Sets the watched resources; stores whose spec is unchanged keep their objects. */
  configure(resources: Readonly<Record<string, IndexedResourceSpec>>): ConfigureResult {
    const added: string[] = [];
    const changed: string[] = [];
    const removed: string[] = [];
    for (const name of [...this.stores.keys()]) {
      if (!(name in resources)) {
        this.drop(name);
        removed.push(name);
      }
    }
    for (const [name, spec] of Object.entries(resources)) {
      const current = this.stores.get(name);
      if (current && sameSpec(current.spec, spec)) continue;
      if (current) this.drop(name);
      (current ? changed : added).push(name);
      this.stores.set(
        name,
        new ResourceStore({
          indexBy: [...spec.indexBy],
          store: spec.store,
          ...(spec.quietPaths ? { quietPaths: [...spec.quietPaths] } : {}),
        }),
      );
    }
    const result = { added, changed, removed };
    if (added.length + changed.length + removed.length > 0) {
      this.version++;
      for (const l of this.configuredListeners) l(result);
    }
    return result;
  }

  /**
   * Registers a listener for configurations that added, replaced or removed a store (a new or
   * replaced store is empty until its first list: the index is not synced meanwhile).
   */
  onConfigured(listener: (result: ConfigureResult) => void): () => void {
    this.configuredListeners.add(listener);
    return () => this.configuredListeners.delete(listener);
  }

  /** True once every configured resource has completed its first list. */
  isSynced(): boolean {
    return [...this.stores.keys()].every((n) => this.listedOnce.has(n));
  }

  /** Configured resources still waiting for their first list. */
  pending(): readonly string[] {
    return [...this.stores.keys()].filter((n) => !this.listedOnce.has(n)).sort();
  }

  /** Number of objects (or references) per watched resource. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.stores].map(([n, s]) => [n, s.size]));
  }

  /** Registers a change listener; returns the function that removes it. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  reset(resource: string, scope: string | undefined, objects: readonly KubeObject[]): void {
    if (!this.stores.get(resource)) return;
    this.stores.get(resource)?.reset(scope, objects);
    this.touched({ resource, change: 'relisted' });
  }

  upsert(resource: string, object: KubeObject): void {
    const store = this.stores.get(resource);
    if (!store) return;
    const result = store.upsert(object);
    // Stored either way (the next snapshot holds it), but a change of quiet fields only — a
    // status haptic writes, a new resourceVersion — does not mark the world dirty.
    if (result === 'quiet') this.version++;
    else this.touched({ resource, change: result, object: refOf(object) });
  }

  remove(resource: string, object: KubeObject): void {
    if (this.stores.get(resource)?.remove(object.metadata.namespace, object.metadata.name)) {
      this.touched({ resource, change: 'deleted', object: refOf(object) });
    }
  }

  listed(resource: string): void {
    if (!this.stores.has(resource) || this.listedOnce.has(resource)) return;
    this.listedOnce.add(resource);
    for (const l of this.listedListeners) l(resource);
  }

  /** Registers a listener for first lists (also of resources that could not be listed). */
  onListed(listener: (resource: string) => void): () => void {
    this.listedListeners.add(listener);
    return () => this.listedListeners.delete(listener);
  }

  /**
   * An immutable snapshot of every store. On-demand objects are fetched now (cache first), so a
   * render reading the snapshot never waits on, or races with, the API server.
   */
  async snapshot(): Promise<IndexSnapshot> {
    const version = this.version;
    const views = new Map<string, ResourceView>();
    const pendingViews: Promise<void>[] = [];
    for (const [name, store] of this.stores) {
      if (store.keepsObjects) {
        views.set(name, store.view());
        continue;
      }
      const entries = store.sortedEntries();
      pendingViews.push(
        this.cache.resolve(name, entries).then((objects) => {
          const items = entries.flatMap((e) => {
            const object = objects.get(e.ref);
            return object ? [{ ...e, object }] : [];
          });
          views.set(name, new ResourceView(store.paths, items));
        }),
      );
    }
    await Promise.all(pendingViews);
    return new Snapshot(version, views);
  }

  /** Cache statistics of on-demand stores. */
  cacheStats(): { size: number; hits: number; misses: number } {
    return { size: this.cache.size, hits: this.cache.hits, misses: this.cache.misses };
  }

  private drop(name: string): void {
    this.stores.delete(name);
    this.listedOnce.delete(name);
    this.cache.dropResource(name);
  }

  private touched(change: IndexChange): void {
    this.version++;
    for (const l of this.listeners) l(change);
  }
}

function refOf(o: KubeObject): { namespace?: string; name: string } {
  return o.metadata.namespace === undefined
    ? { name: o.metadata.name }
    : { namespace: o.metadata.namespace, name: o.metadata.name };
}

function sameSpec(a: IndexedResourceSpec, b: IndexedResourceSpec): boolean {
  return (
    a.store === b.store &&
    JSON.stringify(a.indexBy) === JSON.stringify(b.indexBy) &&
    JSON.stringify(a.quietPaths ?? []) === JSON.stringify(b.quietPaths ?? [])
  );
}
