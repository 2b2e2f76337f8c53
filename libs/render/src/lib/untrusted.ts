import type { Context } from 'liquidjs';
import { objectRef } from './snapshot.js';
import { stateOf, type RenderState } from './state.js';
import type { ObjectRef } from './types.js';

/** Characters that may change how HAProxy reads a word, for some argument kind or quoting. */
export const WORD_SPECIAL = /[\s"'\\#$%(),[\]{}]/;
/** Characters that start an expansion (log-format `%`, environment `$`). */
export const EXPANSION = /[%$]/;

/** An untrusted text a value holds: the watched object's string `leaf` and whether it is all of it. */
export interface UntrustedSource {
  readonly object: ObjectRef;
  readonly leaf: string;
  readonly exact: boolean;
}

interface Index {
  /** Every string field holding a special character, of every watched object. */
  readonly exact: Map<string, ObjectRef>;
  /** Those holding `%` or `$` (few): also looked for inside composed values. */
  readonly expansion: [string, string, ObjectRef][];
}

const MAX_LEAVES = 5_000;
const MAX_DEPTH = 16;

function specialLeaves(value: unknown, out: string[], depth: number, seen: { n: number }): void {
  if (seen.n >= MAX_LEAVES || depth > MAX_DEPTH) return;
  if (typeof value === 'string') {
    seen.n++;
    if (WORD_SPECIAL.test(value)) out.push(value);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) specialLeaves(v, out, depth + 1, seen);
  }
}

// Per object (snapshot objects are immutable and kept across renders): its special leaves.
const LEAVES = new WeakMap<object, readonly string[]>();
const INDEXES = new WeakMap<RenderState, Index>();

function leavesOf(obj: object): readonly string[] {
  let leaves = LEAVES.get(obj);
  if (!leaves) {
    const out: string[] = [];
    specialLeaves(obj, out, 0, { n: 0 });
    LEAVES.set(obj, (leaves = out));
  }
  return leaves;
}

type Entry = readonly [leaf: string, ref: ObjectRef];

// Per snapshot list (a list unchanged between snapshots is the same array): its special leaves.
const LIST_ENTRIES = new WeakMap<readonly object[], readonly Entry[]>();

function entriesOf(watched: string, list: readonly object[]): readonly Entry[] {
  let entries = LIST_ENTRIES.get(list);
  if (!entries) {
    const out: Entry[] = [];
    for (const obj of list) {
      const leaves = leavesOf(obj);
      if (leaves.length === 0) continue;
      const ref = objectRef(watched, obj);
      for (const leaf of leaves) out.push([leaf, ref]);
    }
    LIST_ENTRIES.set(list, (entries = out));
  }
  return entries;
}

/** The render's index of untrusted texts, built on first need (most renders never need it). */
function indexOf(state: RenderState): Index {
  let index = INDEXES.get(state);
  if (index) return index;
  index = { exact: new Map(), expansion: [] };
  for (const watched of state.watchedNames) {
    for (const [leaf, ref] of entriesOf(watched, state.snapshot.list(watched))) {
      if (!index.exact.has(leaf)) index.exact.set(leaf, ref);
      if (EXPANSION.test(leaf)) index.expansion.push([leaf, leaf.toLowerCase(), ref]);
    }
  }
  INDEXES.set(state, index);
  return index;
}

/**
 * The watched object whose text `value` (holding a special character) is: a string field equal
 * to it, or, for a value holding `%` or `$`, a field holding one of them that the value contains
 * or is part of (a value composed or cut by the template; letter case ignored). Undefined: the
 * value is the operator's (the template's own text).
 */
export function untrustedSource(ctx: Context, value: string): UntrustedSource | undefined {
  const index = indexOf(stateOf(ctx));
  const object = index.exact.get(value);
  if (object) return { object, leaf: value, exact: true };
  if (!EXPANSION.test(value)) return undefined;
  const lower = value.toLowerCase();
  for (const [leaf, lowerLeaf, ref] of index.expansion) {
    if (lower.includes(lowerLeaf) || (lower.length >= 4 && lowerLeaf.includes(lower)))
      return { object: ref, leaf, exact: false };
  }
  return undefined;
}
