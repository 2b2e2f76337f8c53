// Sorted lists kept cheaply across renders: a sort that starts from the last call's order (nearly
// sorted after a small change), and binary-search edits of a sorted list, recorded so derived
// lists can follow them.
import { recordFixed, type ListEdit } from '../derived-lists.js';

/**
 * Sorts `items` (distinct objects, `compare` a total order on them, so the result does not
 * depend on the input order) starting from the order of the last call at the same `site`:
 * after a small change the input is nearly sorted, which the engine's merge sort does in about
 * one comparison per item.
 */
const LAST_ORDER = new Map<string, { order: WeakMap<object, number>; size: number }>();
export function sortedFrom<T extends object>(
  site: string,
  items: readonly T[],
  compare: (a: T, b: T) => number,
): T[] {
  const last = LAST_ORDER.get(site);
  let out: T[];
  if (last) {
    // Known items where they were last time (in one pass), new ones after them.
    const placed = new Array<T | undefined>(last.size);
    const fresh: T[] = [];
    for (const o of items) {
      const at = last.order.get(o);
      if (at === undefined || placed[at] !== undefined) fresh.push(o);
      else placed[at] = o;
    }
    out = [];
    for (const o of placed) if (o !== undefined) out.push(o);
    for (const o of fresh) out.push(o);
  } else {
    out = [...items];
  }
  out.sort(compare);
  const order = new WeakMap<object, number>();
  for (let i = 0; i < out.length; i++) order.set(out[i] as object, i);
  LAST_ORDER.set(site, { order, size: out.length });
  return out;
}

/** The first index in sorted `list` whose element is not below `x` (`after`: not below or equal). */
export function boundOf<T>(
  list: readonly T[],
  x: T,
  compare: (a: T, b: T) => number,
  after = false,
) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compare(list[mid] as T, x);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Removes `x` (by identity) from sorted `list`: where it was, or -1 when it is not there. */
export function removeSorted<T>(list: T[], x: T, compare: (a: T, b: T) => number): number {
  for (let i = boundOf(list, x, compare); i < list.length; i++) {
    if (list[i] === x) {
      list.splice(i, 1);
      return i;
    }
    if (compare(list[i] as T, x) !== 0) break;
  }
  return -1;
}

/** Inserts `x` into sorted `list` after its equals; returns where. */
export function insertSorted<T>(list: T[], x: T, compare: (a: T, b: T) => number): number {
  const at = boundOf(list, x, compare, true);
  list.splice(at, 0, x);
  return at;
}

/** A sorted list (a route table) being updated: copied on its first edit, the edits recorded. */
export class SortedTable<T extends object> {
  private routes: T[] | undefined;
  private readonly edits: ListEdit[] = [];

  constructor(
    private readonly last: readonly T[],
    private readonly compare: (a: T, b: T) => number,
  ) {}

  remove(route: T): void {
    const at = removeSorted((this.routes ??= [...this.last]), route, this.compare);
    if (at >= 0) this.edits.push({ at });
  }

  insert(route: T): void {
    const at = insertSorted((this.routes ??= [...this.last]), route, this.compare);
    this.edits.push({ at, item: route });
  }

  /** The table after the edits: the last one itself when none was made. */
  result(): readonly T[] {
    if (!this.routes) return this.last;
    recordFixed(this.routes, { from: this.last, edits: this.edits });
    return this.routes;
  }
}
