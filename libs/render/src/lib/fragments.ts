// Incremental rendering: the output of a `{% render %}` call (an isolated scope: only its
// parameters and the globals are visible) is kept with what it read, and reused while none of it
// changed. Index objects are frozen and replaced on change, so identity says "unchanged".
import type { RenderSnapshot } from './types.js';
import { sameItems } from './same-items.js';

/** Something a fragment read, checked before its output is reused. */
export type Dependency =
  | {
      readonly kind: 'lookup';
      /** What a recorder knows it by (one read, one id; made once, when recorded). */
      readonly id: string;
      readonly watched: string;
      readonly keys: readonly string[];
      /** The signature key of the watched list (`list:<watched>`). */
      readonly list: string;
      readonly result: readonly object[];
      /**
       * The token of the watched list (`list:<watched>`) for which `result` is known to hold:
       * while the list has the same elements, the look-up gives the same, unchecked. Moved on
       * when a check under a newer token finds the same result.
       */
      token: unknown;
    }
  | {
      /** A value with a per-render signature (a global, a whole list, a deployed backend). */
      readonly kind: 'value';
      readonly id: string;
      readonly key: string;
      readonly signature: unknown;
      /** What settles it (see FragmentSession's `settled`): the deployed config, `extra`, nothing. */
      readonly settles: Settles;
    };

type LookupDependency = Extract<Dependency, { kind: 'lookup' }>;

const LIST_KEYS = new Map<string, string>();

/** The signature key of a watched list (`list:<watched>`), one string per list. */
export function listKey(watched: string): string {
  let key = LIST_KEYS.get(watched);
  if (key === undefined) LIST_KEYS.set(watched, (key = `list:${watched}`));
  return key;
}

/**
 * The look-ups of one render by watched list, then key by key (no key string is built per call:
 * the keys are strings a template already holds, their hashes cached). `memo` is the look-up of
 * exactly the keys on the way to the node; `dep`, its dependency once a fragment recorded it.
 */
interface LookupNode {
  memo?: { readonly result: readonly object[]; dep?: LookupDependency };
  next?: Map<string, LookupNode>;
}

/** Which of a settled render's inputs a value dependency reads (the rest are always checked). */
export type Settles = 'previous' | 'extra' | undefined;

function settlesOf(key: string): Settles {
  if (key.startsWith('previous.')) return 'previous';
  return key === 'global:extra' ? 'extra' : undefined;
}

/** What a run of fragments read, summed up: each value's signature, each look-up's list token. */
export interface RunReads {
  /** Value dependencies that nothing settles: their signatures then. */
  readonly values: ReadonlyMap<string, unknown>;
  /** Look-ups, by list (`list:<watched>`): the token their results hold for. */
  readonly lists: ReadonlyMap<string, unknown>;
  /** What settles the other value dependencies (they read as then while it holds). */
  readonly settles: ReadonlySet<'previous' | 'extra'>;
}

/** A certificate or crt-list registration a fragment made, replayed when it is reused. */
export interface Registration {
  readonly registry: 'certificates' | 'crtLists' | 'generalFiles';
  readonly name: string;
  readonly content: string;
}

/** One rendered fragment: its output, what it read and what it registered. */
export interface Fragment {
  readonly deps: readonly Dependency[];
  readonly output: string;
  readonly registrations: readonly Registration[];
  /** Set when the fragment read its `forloop` (a `render ... for` item): where it was. */
  readonly position?: string;
  generation: number;
}

/** What one fragment being rendered has read so far. */
export class Recorder {
  readonly deps = new Map<string, Dependency>();
  readonly registrations: Registration[] = [];
  /** Whether the fragment read its position (`forloop`). */
  position = false;
}

/** How a render computes the signature of a value dependency (once per render, memoised). */
export type Signer = (key: string) => unknown;

/**
 * One render's view of the cache: records what fragments read (a stack, so an outer fragment
 * inherits what its inner ones read) and decides whether a kept fragment is still valid.
 */
export class FragmentSession {
  private readonly recorders: Recorder[] = [];
  private readonly signatures = new Map<string, unknown>();
  private readonly lookups = new Map<string, LookupNode>();
  /** The value dependencies recorded in this render, one object per key (shared by fragments). */
  private readonly recordedValues = new Map<string, Dependency>();

  constructor(
    readonly cache: FragmentCache,
    private readonly snapshot: RenderSnapshot,
    private readonly signer: Signer,
    /** Reuse kept fragments but keep nothing (a dry run must not change the cache). */
    readonly reuseOnly = false,
    /**
     * Value dependencies that read the same as when the last successful render settled the
     * cache (its `previous` input, its `extra`): a fragment valid then needs no check of them.
     */
    private readonly settled: (settles: 'previous' | 'extra') => boolean = () => false,
  ) {}

  /** Keeps a rendered fragment (unless this render only reuses). */
  keep(site: object, key: string, item: unknown, fragment: Fragment): void {
    if (!this.reuseOnly) this.cache.set(site, key, item, fragment);
  }

  /** Marks a kept fragment as used by this render (unless this render only reuses). */
  used(fragment: Fragment): void {
    if (!this.reuseOnly) fragment.generation = this.cache.current;
  }

  /** True while a fragment is being rendered (reads must be recorded). */
  get recording(): boolean {
    return this.recorders.length > 0;
  }

  /** The per-render signature of a value dependency. */
  signature(key: string): unknown {
    // One look-up when known (signers give no undefined; one that did would only be asked again).
    const known = this.signatures.get(key);
    if (known !== undefined) return known;
    const signature = this.signer(key);
    this.signatures.set(key, signature);
    return signature;
  }

  /** Records a read of a value dependency by every fragment being rendered. */
  readValue(key: string): void {
    if (this.recorders.length === 0) return;
    let dep = this.recordedValues.get(key);
    if (!dep) {
      const signature = this.signature(key);
      dep = { kind: 'value', id: `V\u0000${key}`, key, signature, settles: settlesOf(key) };
      this.recordedValues.set(key, dep);
    }
    this.record(dep);
  }

  /** A look-up in the snapshot (memoised for the render), recorded as a dependency. */
  lookup(watched: string, keys: readonly string[]): readonly object[] {
    const memo = this.memoised(watched, keys);
    if (this.recorders.length > 0) {
      let dep = memo.dep;
      if (!dep) {
        const list = listKey(watched);
        // One flat string (a template literal would keep its pieces as a rope, one per look-up).
        const id = ['L', watched, keys.length, ...keys].join('\u0000');
        const token = this.signature(list);
        dep = { kind: 'lookup', id, watched, keys: [...keys], list, result: memo.result, token };
        memo.dep = dep;
      }
      this.record(dep);
    }
    return memo.result;
  }

  private memoised(
    watched: string,
    keys: readonly string[],
  ): { readonly result: readonly object[]; dep?: LookupDependency } {
    let node = this.lookups.get(watched);
    if (!node) this.lookups.set(watched, (node = {}));
    for (const key of keys) {
      const next: Map<string, LookupNode> = (node.next ??= new Map<string, LookupNode>());
      let child = next.get(key);
      if (!child) next.set(key, (child = {}));
      node = child;
    }
    return (node.memo ??= { result: this.snapshot.lookup(watched, keys) });
  }

  /** Records a registration by every fragment being rendered. */
  registered(registration: Registration): void {
    for (const r of this.recorders) r.registrations.push(registration);
  }

  /** Starts recording a fragment (until `close`); reads are recorded by every open one. */
  open(): Recorder {
    const recorder = new Recorder();
    this.recorders.push(recorder);
    return recorder;
  }

  /** Stops recording the innermost fragment. */
  close(recorder: Recorder): void {
    if (this.recorders.pop() !== recorder)
      throw new Error('fragment recorders closed out of order');
  }

  /** Whether every dependency of a kept fragment reads the same now. */
  valid(fragment: Fragment): boolean {
    // Valid when the cache settled (or rendered in this render): its settled values hold.
    const g = fragment.generation;
    const settled = g === this.cache.settledAt || g === this.cache.current;
    for (const dep of fragment.deps) {
      if (dep.kind === 'value') {
        if (settled && dep.settles !== undefined && this.settled(dep.settles)) continue;
        if (this.signature(dep.key) !== dep.signature) return false;
      } else {
        // Same list elements, same look-up: only a changed list needs the look-up again.
        const token = this.signature(dep.list);
        if (token === dep.token) continue;
        if (!sameItems(this.memoised(dep.watched, dep.keys).result, dep.result)) return false;
        if (!this.reuseOnly) dep.token = token;
      }
    }
    return true;
  }

  /**
   * Whether a run of kept fragments, all valid in render `generation`, still is: as
   * `valid` for each of them, on what they read summed up (see fragment-runs.ts).
   */
  validReads(reads: RunReads, generation: number): boolean {
    if (reads.settles.size > 0) {
      const g = generation;
      if (g !== this.cache.settledAt && g !== this.cache.current) return false;
      for (const settles of reads.settles) if (!this.settled(settles)) return false;
    }
    for (const [key, signature] of reads.values)
      if (this.signature(key) !== signature) return false;
    for (const [list, token] of reads.lists) if (this.signature(list) !== token) return false;
    return true;
  }

  /** A reused fragment's reads count for the fragments around it. */
  inherit(fragment: Fragment): void {
    if (this.recorders.length === 0) return;
    for (const dep of fragment.deps) this.record(dep);
    for (const r of fragment.registrations) this.registered(r);
  }

  private record(dep: Dependency): void {
    const id = dep.id;
    for (const r of this.recorders) if (!r.deps.has(id)) r.deps.set(id, dep);
  }
}

/**
 * The fragments kept for one compiled config, by call site and parameters. Entries not used by
 * the last successful render are dropped (`sweep`), so the cache holds one render's fragments.
 */
/** The item key of a fragment that is not an item of a `render ... for` list. */
export const NO_ITEM: unique symbol = Symbol('no item');

/**
 * The fragments kept for one compiled config, by call site, parameters (a key: primitives by
 * value, objects by identity) and list item (by identity). Entries not used by the last
 * successful render are dropped (`sweep`), so the cache holds one render's fragments.
 */
export class FragmentCache {
  private readonly sites = new Map<object, Map<string, Map<unknown, Fragment>>>();
  private generation = 0;
  /** Lists seen by the last render and their tokens (equal elements, equal token). */
  private readonly lists = new Map<string, { list: readonly object[]; token: number }>();
  private nextToken = 0;

  /** Starts a render: fragments used from now on are kept by the next sweep. */
  begin(): number {
    return ++this.generation;
  }

  /**
   * A token that changes whenever a watched list's elements change. `peek`: compare with the
   * last list without remembering this one (a fresh token for a different list).
   */
  listToken(watched: string, list: readonly object[], peek = false): number {
    const last = this.lists.get(watched);
    if (last && (last.list === list || sameItems(last.list, list))) {
      if (!peek) this.lists.set(watched, { list, token: last.token });
      return last.token;
    }
    const token = ++this.nextToken;
    if (!peek) this.lists.set(watched, { list, token });
    return token;
  }

  /** The fragments of one call site with the same parameters, by item (NO_ITEM: none). */
  entries(site: object, key: string): ReadonlyMap<unknown, Fragment> | undefined {
    return this.sites.get(site)?.get(key);
  }

  get(site: object, key: string, item: unknown = NO_ITEM): Fragment | undefined {
    return this.sites.get(site)?.get(key)?.get(item);
  }

  set(site: object, key: string, item: unknown, fragment: Fragment): void {
    let keys = this.sites.get(site);
    if (!keys) this.sites.set(site, (keys = new Map<string, Map<unknown, Fragment>>()));
    let items = keys.get(key);
    if (!items) keys.set(key, (items = new Map<unknown, Fragment>()));
    items.set(item, fragment);
  }

  /**
   * The generation of the last successful render, after its sweep: every fragment kept then
   * was valid for its inputs (`settledInputs`).
   */
  settledAt: number | undefined;
  settledInputs: { readonly previous: unknown; readonly extra: string } | undefined;

  /** Records that the current render succeeded with these inputs (after `sweep`). */
  settle(inputs: { readonly previous: unknown; readonly extra: string }): void {
    this.settledAt = this.generation;
    this.settledInputs = inputs;
  }

  /** Drops the fragments the current render did not use. */
  sweep(): void {
    // forEach, not for-of: no entry array per fragment (tens of thousands, every render)
    const generation = this.generation;
    this.sites.forEach((keys, site) => {
      keys.forEach((items, key) => {
        items.forEach((f, item) => {
          if (f.generation !== generation) items.delete(item);
        });
        if (items.size === 0) keys.delete(key);
      });
      if (keys.size === 0) this.sites.delete(site);
    });
  }

  /** How many fragments are kept (for tests and the bench). */
  get size(): number {
    let n = 0;
    for (const keys of this.sites.values()) for (const items of keys.values()) n += items.size;
    return n;
  }

  get current(): number {
    return this.generation;
  }
}
