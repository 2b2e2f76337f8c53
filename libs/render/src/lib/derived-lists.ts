// Lists their makers promise never to change (the Ingress model's route tables), and how one was
// made from another by a few insertions and removals (a route table after a one-Ingress change):
// what is computed from such a list (`map_lines`) is kept for it, and updated from the other's.

/** One step from a list to the next: `item` inserted before index `at`, or (none) `at` removed. */
export interface ListEdit {
  readonly at: number;
  readonly item?: object;
}

/** How a list was made: `from` (a fixed list) after `edits`, in order. */
export interface Derivation {
  readonly from: readonly unknown[];
  readonly edits: readonly ListEdit[];
}

const FIXED = new WeakMap<readonly unknown[], Derivation | null>();

/**
 * Records that `list` never changes from now on (nor does `from`), and, with `derivation`, that
 * it is `from` after the edits. One step is kept: `from`'s own derivation is dropped (a chain
 * would keep every older list alive).
 */
export function recordFixed(list: readonly unknown[], derivation?: Derivation): void {
  if (derivation && FIXED.has(derivation.from)) FIXED.set(derivation.from, null);
  FIXED.set(list, derivation ?? null);
}

/** Whether `list` was recorded as one that never changes. */
export function isFixed(list: readonly unknown[]): boolean {
  return FIXED.has(list);
}

/** How a fixed `list` was made from another, when recorded. */
export function derivationOf(list: readonly unknown[]): Derivation | undefined {
  return FIXED.get(list) ?? undefined;
}
