import { deepFreeze } from '#core';
import { OnDemandFetchError } from '../index.errors.js';
import type { StoreEntry } from './store.js';
import type { KubeObject, ObjectFetchPort, StoredObject } from './types.js';

/** Bounds of the on-demand object cache. */
export interface CacheOptions {
  /** Most objects kept across all on-demand stores (least recently used go first). */
  readonly maxEntries: number;
  /** How long a fetched object may be reused, in milliseconds. */
  readonly ttlMs: number;
  /** Most fetches in flight at once while prefetching. */
  readonly concurrency: number;
}

export const DEFAULT_CACHE_OPTIONS: CacheOptions = {
  maxEntries: 5000,
  ttlMs: 60_000,
  concurrency: 16,
};

interface CacheLine {
  readonly resourceVersion: string;
  readonly object: StoredObject;
  readonly expiresAt: number;
}

/**
 * Objects of on-demand stores, fetched through the port and kept for a while. A line is only
 * reused for the exact resourceVersion its reference holds, so a stale object is never served.
 */
export class OnDemandCache {
  private readonly lines = new Map<string, CacheLine>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly port: ObjectFetchPort | undefined,
    private readonly options: CacheOptions = DEFAULT_CACHE_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.lines.size;
  }

  /**
   * Resolves every entry to an object (prefetch for one render). Entries whose object is gone
   * (deleted after the reference was seen) are left out; a failed fetch rejects the whole call.
   */
  async resolve(
    resource: string,
    entries: readonly StoreEntry[],
  ): Promise<Map<string, StoredObject>> {
    const out = new Map<string, StoredObject>();
    const missing: StoreEntry[] = [];
    for (const e of entries) {
      const hit = this.get(resource, e);
      if (hit) out.set(e.ref, hit);
      else missing.push(e);
    }
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) {
        const e = missing[next++]!;
        const object = await this.fetch(resource, e);
        if (object) out.set(e.ref, object);
      }
    };
    const workers = Math.min(this.options.concurrency, missing.length);
    await Promise.all(Array.from({ length: workers }, worker));
    return out;
  }

  /** Forgets every line of a resource (its store was reconfigured or removed). */
  dropResource(resource: string): void {
    const prefix = `${resource}\u0000`;
    for (const key of this.lines.keys()) if (key.startsWith(prefix)) this.lines.delete(key);
  }

  private get(resource: string, e: StoreEntry): StoredObject | undefined {
    const key = `${resource}\u0000${e.ref}`;
    const line = this.lines.get(key);
    if (!line) return undefined;
    if (line.resourceVersion !== e.resourceVersion || line.expiresAt <= this.now()) {
      this.lines.delete(key);
      return undefined;
    }
    // Re-insert to mark as recently used (Map keeps insertion order).
    this.lines.delete(key);
    this.lines.set(key, line);
    this.hits++;
    return line.object;
  }

  private async fetch(resource: string, e: StoreEntry): Promise<StoredObject | undefined> {
    if (!this.port) throw new OnDemandFetchError(resource, e.ref, 'no fetch port is configured');
    this.misses++;
    let fetched: KubeObject | undefined;
    try {
      fetched = await this.port.fetchObject(resource, e.namespace || undefined, e.name);
    } catch (cause) {
      throw new OnDemandFetchError(resource, e.ref, cause);
    }
    if (!fetched) return undefined;
    const object = deepFreeze(fetched);
    // A newer object than the reference means a watch event is on its way; keep it under the
    // version it really has so the reference, once updated, hits it.
    this.put(`${resource}\u0000${e.ref}`, {
      resourceVersion: fetched.metadata.resourceVersion ?? '',
      object,
      expiresAt: this.now() + this.options.ttlMs,
    });
    return object;
  }

  private put(key: string, line: CacheLine): void {
    this.lines.delete(key);
    this.lines.set(key, line);
    while (this.lines.size > this.options.maxEntries) {
      const oldest = this.lines.keys().next().value;
      if (oldest === undefined) break;
      this.lines.delete(oldest);
    }
  }
}
