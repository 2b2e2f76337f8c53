import type { MapEntry } from './map-file.js';

/** Entry changes that turn one map into another through HAProxy's runtime API, one entry each. */
export interface MapEdits {
  /** Keys to remove (`del map`: every row of the key). */
  readonly del: readonly string[];
  /** Entries whose value changes in place (`set map`: the row keeps its position). */
  readonly set: readonly MapEntry[];
  /** Entries to add (`add map`: appended after every other row). */
  readonly add: readonly MapEntry[];
}

/** Above this many entry changes one atomic replace (prepare/commit map) is cheaper. */
export const MAX_MAP_EDITS = 64;

/** A map converter's match kind: `map(` and `map_str(` are `str`, `map_beg(` is `beg`, … */
const CONVERTER = /\bmap(?:_([a-z]+))?\(\s*"?([^\s,()"]+)/g;

let lastKinds: { readonly config: string; readonly kinds: Map<string, Set<string>> } | undefined;

/**
 * How a configuration matches each map file it names, by file name: the match kinds of the
 * `map…(` converters that read it (`str`, `beg`, `end`, `reg`, …), plus `other` for any other
 * mention of the name (an ACL's `-f`, a comment: read as an order-sensitive use).
 */
export function mapMatchKinds(config: string, name: string): ReadonlySet<string> {
  if (lastKinds?.config !== config) lastKinds = { config, kinds: new Map() };
  const known = lastKinds.kinds.get(name);
  if (known) return known;
  const kinds = new Set<string>();
  let viaConverter = 0;
  for (const m of config.matchAll(CONVERTER)) {
    const file = m[2] ?? '';
    if (file !== name && !file.endsWith(`/${name}`)) continue;
    kinds.add(m[1] === undefined ? 'str' : m[1]);
    viaConverter++;
  }
  let mentions = 0;
  for (let at = config.indexOf(name); at !== -1; at = config.indexOf(name, at + name.length))
    mentions++;
  if (mentions > viaConverter) kinds.add('other');
  lastKinds.kinds.set(name, kinds);
  return kinds;
}

/** Key → value when every key is on one row only (`add map` duplicates, `del map` removes all). */
function uniqueKeys(entries: readonly MapEntry[]): Map<string, string> | undefined {
  const byKey = new Map<string, string>();
  for (const e of entries) {
    if (byKey.has(e.key)) return undefined;
    byKey.set(e.key, e.value);
  }
  return byKey;
}

/**
 * The entry changes from `before` to `after`, or undefined when only an atomic replace gives the
 * same lookups: a key on two rows, a value to set to nothing, more than MAX_MAP_EDITS changes, or
 * added rows whose place matters. Removing rows and setting values in place keep every other
 * row's order; an added row lands last, which gives the same lookups when the map is matched
 * exactly (`str`: a tree, order-free), when no other key is a prefix of it nor it of another
 * (`beg`: the first row in order that matches wins), or when the new rows are the last ones.
 */
export function mapEdits(
  before: readonly MapEntry[],
  after: readonly MapEntry[],
  kinds: ReadonlySet<string>,
): MapEdits | undefined {
  const was = uniqueKeys(before);
  const now = uniqueKeys(after);
  if (!was || !now) return undefined;
  const del = before.filter((e) => !now.has(e.key)).map((e) => e.key);
  const set = after.filter((e) => was.has(e.key) && was.get(e.key) !== e.value);
  const add = after.filter((e) => !was.has(e.key));
  if (del.length + set.length + add.length > MAX_MAP_EDITS) return undefined;
  if (set.some((e) => e.value === '')) return undefined;
  if (add.length > 0 && !addsKeepLookups(before, after, add, now, kinds)) return undefined;
  return { del, set, add };
}

function addsKeepLookups(
  before: readonly MapEntry[],
  after: readonly MapEntry[],
  add: readonly MapEntry[],
  now: ReadonlyMap<string, string>,
  kinds: ReadonlySet<string>,
): boolean {
  const all = [...kinds];
  if (all.every((k) => k === 'str')) return true;
  if (
    all.every((k) => k === 'str' || k === 'beg') &&
    add.every((a) =>
      after.every((e) => e.key === a.key || !(e.key.startsWith(a.key) || a.key.startsWith(e.key))),
    )
  )
    return true;
  // the rows as the runtime will hold them: the kept ones in their order, the added ones last
  const kept = before.filter((e) => now.has(e.key));
  if (kept.length + add.length !== after.length) return false;
  return [...kept, ...add].every((e, i) => e.key === after[i]?.key);
}
