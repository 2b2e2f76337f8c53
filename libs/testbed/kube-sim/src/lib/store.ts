import { errors } from './status.js';
import type { KubeObject } from './types.js';

/** One change, as kept in history and delivered to watchers. */
export interface StoreEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  readonly storageKey: string;
  /** The object after the change (for DELETED: the last state, stamped with the deletion's rv). */
  readonly object: KubeObject;
  /** The object before the change (undefined for ADDED). */
  readonly previous: KubeObject | undefined;
}

export type StoreListener = (event: StoreEvent) => void;

/** Key of an object inside its resource: "namespace/name" or "/name" for cluster-scoped objects. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/**
 * Every object of every resource, with one resourceVersion counter across all kinds and a bounded
 * history of changes that watches replay from. Objects handed in or out are never mutated.
 */
export class Store {
  private rv = 1;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly sorted = new Map<string, KubeObject[]>();
  private history: StoreEvent[] = [];
  private historyStart = 0;
  private compactedThrough = 0;
  private readonly listeners = new Set<StoreListener>();
  /** Bumped by `clear()`, which changes objects without events: derived indexes rebuild. */
  private clears = 0;

  constructor(private historyLimit: number) {}

  /** The current resourceVersion (the rv of the newest change). */
  get resourceVersion(): number {
    return this.rv;
  }

  /** The newest resourceVersion whose change is no longer replayable. */
  get compactedResourceVersion(): number {
    return this.compactedThrough;
  }

  setHistoryLimit(limit: number): void {
    this.historyLimit = limit;
    this.trim();
  }

  get(storageKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(storageKey)?.get(objectKey(namespace, name));
  }

  /** Objects of one resource (optionally one namespace), ordered by namespace then name as etcd orders keys. */
  list(storageKey: string, namespace?: string): readonly KubeObject[] {
    let all = this.sorted.get(storageKey);
    if (!all) {
      const m = this.objects.get(storageKey);
      all = m
        ? [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o)
        : [];
      this.sorted.set(storageKey, all);
    }
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }

  /** How many times `clear()` ran (objects then changed without events). */
  get epoch(): number {
    return this.clears;
  }

  /** Objects of one resource in no particular order (no sort: for scans that need none). */
  values(storageKey: string): IterableIterator<KubeObject> {
    return (this.objects.get(storageKey) ?? new Map<string, KubeObject>()).values();
  }

  /** Every storage key that holds objects. */
  keys(): string[] {
    return [...this.objects.keys()];
  }

  /** Writes an object (ADDED or MODIFIED), stamping the next resourceVersion; returns the stored copy. */
  put(storageKey: string, obj: KubeObject): KubeObject {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    let m = this.objects.get(storageKey);
    if (!m) this.objects.set(storageKey, (m = new Map<string, KubeObject>()));
    const previous = m.get(key);
    const rv = ++this.rv;
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    m.set(key, stored);
    this.sorted.delete(storageKey);
    this.record({
      type: previous ? 'MODIFIED' : 'ADDED',
      rv,
      storageKey,
      object: stored,
      previous,
    });
    return stored;
  }

  /** Removes an object (DELETED event); returns its last state stamped with the deletion's rv. */
  remove(storageKey: string, namespace: string | undefined, name: string): KubeObject | undefined {
    const m = this.objects.get(storageKey);
    const key = objectKey(namespace, name);
    const previous = m?.get(key);
    if (!m || !previous) return undefined;
    m.delete(key);
    this.sorted.delete(storageKey);
    const rv = ++this.rv;
    const object = { ...previous, metadata: { ...previous.metadata, resourceVersion: String(rv) } };
    this.record({ type: 'DELETED', rv, storageKey, object, previous });
    return object;
  }

  /** Drops every object of a resource without events (used when a CRD disappears with its data). */
  dropResource(storageKey: string): void {
    for (const o of this.list(storageKey))
      this.remove(storageKey, o.metadata.namespace, o.metadata.name!);
  }

  /**
   * Changes of one resource after `since`, oldest first; throws 410 Expired when some of them have
   * been compacted away (the client must list again).
   */
  changesSince(storageKey: string, since: number): StoreEvent[] {
    if (since < this.compactedThrough) {
      throw errors.expired(`too old resource version: ${since} (${this.compactedThrough + 1})`);
    }
    const out: StoreEvent[] = [];
    for (let i = this.historyStart; i < this.history.length; i++) {
      const e = this.history[i]!;
      if (e.rv > since && e.storageKey === storageKey) out.push(e);
    }
    return out;
  }

  /** Forgets all history: every watch from an older resourceVersion now gets 410. */
  compact(): void {
    this.compactedThrough = this.rv;
    this.history = [];
    this.historyStart = 0;
  }

  /** Removes every object (without events), forgets history and keeps the counter increasing. */
  clear(): void {
    this.objects.clear();
    this.sorted.clear();
    this.clears++;
    this.rv += 1;
    this.compact();
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private record(event: StoreEvent): void {
    this.history.push(event);
    this.trim();
    for (const l of [...this.listeners]) l(event);
  }

  private trim(): void {
    const live = this.history.length - this.historyStart;
    if (live <= this.historyLimit) return;
    const drop = live - this.historyLimit;
    this.compactedThrough = this.history[this.historyStart + drop - 1]!.rv;
    this.historyStart += drop;
    // Re-pack occasionally so the array does not grow without bound.
    if (this.historyStart > 4096 && this.historyStart > this.history.length / 2) {
      this.history = this.history.slice(this.historyStart);
      this.historyStart = 0;
    }
  }
}
