// Runs of a `render ... for` list: consecutive items whose kept fragments are checked and written
// as one (what they read summed up, their outputs joined), so a list of 10,000 mostly unchanged
// items costs a check per run and a comparison per item, not a fragment check per item.
import type { Fragment, FragmentCache, FragmentSession, RunReads } from './fragments.js';

/** How many items a run built from single items holds at least (but at a list's end)... */
const SHORTEST = 16;
/** ...and at most. */
const LONGEST = 64;

/** What the fragments read, summed up; undefined when they cannot be reused as one. */
function readsOf(fragments: readonly Fragment[]): RunReads | undefined {
  const values = new Map<string, unknown>();
  const lists = new Map<string, unknown>();
  const settles = new Set<'previous' | 'extra'>();
  for (const f of fragments) {
    // Where it is and what it registers are checked, replayed, fragment by fragment.
    if (f.position !== undefined || f.registrations.length > 0) return undefined;
    for (const dep of f.deps) {
      if (dep.kind === 'value') {
        if (dep.settles !== undefined) settles.add(dep.settles);
        else if (!values.has(dep.key)) values.set(dep.key, dep.signature);
        else if (values.get(dep.key) !== dep.signature) return undefined;
      } else if (!lists.has(dep.list)) {
        lists.set(dep.list, dep.token);
      } else if (lists.get(dep.list) !== dep.token) {
        return undefined;
      }
    }
  }
  return { values, lists, settles };
}

/** Consecutive items of a list and the fragment each was written from. */
export class Run {
  private text: string | undefined;

  constructor(
    readonly items: readonly unknown[],
    private readonly fragments: readonly Fragment[],
    /** What they read (undefined: not reusable as one). */
    private readonly reads: RunReads | undefined,
    /** The render in which every fragment was valid. */
    private generation: number,
  ) {}

  /** The fragments' outputs, one flat string. */
  get output(): string {
    return (this.text ??= this.fragments.map((f) => f.output).join(''));
  }

  /** Whether every fragment is still valid (as FragmentSession's `valid` says of each). */
  valid(session: FragmentSession): boolean {
    return this.reads !== undefined && session.validReads(this.reads, this.generation);
  }

  /** Marks the run (and each fragment) used by this render. */
  used(session: FragmentSession): void {
    if (session.reuseOnly) return;
    for (const f of this.fragments) session.used(f);
    this.generation = session.cache.current;
  }
}

/** The runs of one list as the last render of it wrote it (for one call site and parameters). */
export class ListRuns {
  private readonly starts = new Map<unknown, number>();
  private next = 0;

  constructor(
    /** The cache and parameter key the runs were made under. */
    readonly cache: FragmentCache,
    readonly key: string,
    private readonly runs: readonly Run[],
  ) {
    for (let i = 0; i < runs.length; i++) {
      const first = (runs[i] as Run).items[0];
      if (!this.starts.has(first)) this.starts.set(first, i);
    }
  }

  /** The run of the same items as `collection` from `index` on, if any (by identity). */
  at(collection: readonly unknown[], index: number): Run | undefined {
    let at = this.next;
    if (this.runs[at]?.items[0] !== collection[index]) {
      const found = this.starts.get(collection[index]);
      if (found === undefined) return undefined;
      at = found;
    }
    const run = this.runs[at] as Run;
    const items = run.items;
    if (index + items.length > collection.length) return undefined;
    for (let i = 0; i < items.length; i++) if (items[i] !== collection[index + i]) return undefined;
    this.next = at + 1;
    return run;
  }
}

/**
 * The runs of a list being written: kept runs reused whole, single items (reused or rendered)
 * gathered into new runs. A run is reused only when the items before it make a run of their
 * own (or there are none): short runs are merged, so a list keeps few of them.
 */
export class RunsBuilder {
  private readonly runs: Run[] = [];
  private items: unknown[] = [];
  private fragments: (Fragment | undefined)[] = [];

  constructor(private readonly session: FragmentSession) {}

  /** Whether `run` (found at the list's `index`, of `length`) is to be written whole. */
  takes(run: Run, index: number, length: number): boolean {
    const pending = this.items.length;
    if (
      pending > 0
        ? pending < SHORTEST
        : run.items.length < SHORTEST && index + run.items.length < length
    )
      return false;
    return run.valid(this.session);
  }

  /** A kept run written whole. */
  reused(run: Run): void {
    this.flush();
    run.used(this.session);
    this.runs.push(run);
  }

  /** One item written from `fragment` (undefined: refused, nothing written). */
  item(item: unknown, fragment: Fragment | undefined): void {
    this.items.push(item);
    this.fragments.push(fragment);
    if (this.items.length >= LONGEST) this.flush();
  }

  /** The list's runs, once every item is written. */
  done(key: string): ListRuns {
    this.flush();
    return new ListRuns(this.session.cache, key, this.runs);
  }

  private flush(): void {
    if (this.items.length === 0) return;
    const fragments = this.fragments.filter((f): f is Fragment => f !== undefined);
    const whole = fragments.length === this.fragments.length;
    const reads = whole ? readsOf(fragments) : undefined;
    this.runs.push(new Run(this.items, fragments, reads, this.session.cache.current));
    this.items = [];
    this.fragments = [];
  }
}
