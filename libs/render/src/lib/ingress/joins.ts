// The joins of the Ingress model: the served Ingresses' routes and backends in the library's
// orders, built whole from the served Ingresses or updated from the last build when a few
// Ingresses that share no route with any other changed (the common change: one Ingress).
import { recordFixed } from '../derived-lists.js';
import { byCodeUnits } from '../liquid-values.js';
import { SortedTable, insertSorted, removeSorted, sortedFrom } from './sorting.js';

export { sortedFrom } from './sorting.js';

/** A route: `key` ("<host><path>", "/"-terminated for Prefix) to a backend. */
export interface IngressRoute {
  readonly key: string;
  readonly backend: string;
}

/** One backend an Ingress uses, named as the library names it. */
export interface IngressBackend {
  /** svc_<ns>_<service>_<port> (shared) or ing_<ns>_<ingress>_<service>_<port> (annotated). */
  readonly name: string;
  readonly namespace: string;
  readonly service: string;
  /** The Service port, a number (as text) or a name. */
  readonly port: string;
  /** The Ingress the backend is written for (annotations, attribution). */
  readonly ingress: object;
}

/** One spec.tls entry of a served Ingress that names a Secret. */
export interface IngressTls {
  readonly ingress: object;
  /** The Ingress's namespace (where the Secret is looked up). */
  readonly namespace: string;
  readonly secret: string;
  /** spec.tls[].hosts as written (checked by the template). */
  readonly hosts: readonly unknown[];
}

export type Kind = 'E' | 'P' | 'I';

/** One route of an Ingress, as the library claims it. */
export interface Claim {
  /** `<kind> <key>`: what two Ingresses may not both claim. */
  readonly owned: string;
  readonly kind: Kind;
  readonly key: string;
  readonly host: string;
  readonly path: string;
  readonly type: string;
  readonly backend: string;
}

/** A backend of an Ingress with its sort entry ("<name>|<ns>|<service>|<port>|<ingress>"). */
export interface BackendEntry {
  readonly entry: string;
  readonly backend: IngressBackend;
}

/** What reading one Ingress gave (made once per Ingress object). */
export interface ReadIngress {
  readonly ing: object;
  readonly id: string;
  readonly claims: readonly Claim[];
  readonly defaultBackend: string | undefined;
  /** Its backends, each object made once per Ingress object (stable across renders). */
  readonly backends: readonly BackendEntry[];
  /** Its spec.tls entries that name a Secret. */
  readonly tls: readonly IngressTls[];
}

/** The joins over the served Ingresses, and what updating them needs. */
export interface Joins {
  /** Served, oldest first. */
  readonly served: readonly ReadIngress[];
  readonly servedObjects: readonly object[];
  readonly exact: readonly IngressRoute[];
  readonly prefix: readonly IngressRoute[];
  /** The first entry of each backend name, in entry order (the model's `backends`). */
  readonly winners: readonly BackendEntry[];
  readonly backends: readonly IngressBackend[];
  readonly tls: readonly IngressTls[];
  /** The served Ingresses that have spec.tls entries, in served order (what `tls` is made of). */
  readonly tlsServed: readonly ReadIngress[];
  readonly defaultBackend: string;
  /**
   * How many selected, readable Ingresses (served or refused for a conflict) claim each route
   * table key ("E <key>" or "X <key>" for the Prefix/ImplementationSpecific table). Updated in
   * place by `updatedJoins`: a Joins is used once, then replaced.
   */
  readonly claimants: Map<string, number>;
  /** Every served Ingress's backends by name, in entry order. Updated in place as `claimants`. */
  readonly candidates: Map<string, BackendEntry[]>;
}

/**
 * One route object per claim, so a route that did not change is the same object in every render
 * (frozen: what is computed from it, a map line, holds while it is the same object).
 */
const ROUTES = new WeakMap<Claim, IngressRoute>();
function routeOf(c: Claim): IngressRoute {
  let route = ROUTES.get(c);
  if (!route) ROUTES.set(c, (route = Object.freeze({ key: c.key, backend: c.backend })));
  return route;
}

const RANK = new WeakMap<IngressRoute, string>();
function rankOf(r: IngressRoute): string {
  let rank = RANK.get(r);
  if (rank === undefined) RANK.set(r, (rank = `${99999 - r.key.length} ${r.key}`));
  return rank;
}

const byKey = (a: IngressRoute, b: IngressRoute): number => byCodeUnits(a.key, b.key);
// Longest key first, then key order (the library's "99999 - length" rank, as text).
const byRank = (a: IngressRoute, b: IngressRoute): number => byCodeUnits(rankOf(a), rankOf(b));
const byEntry = (a: BackendEntry, b: BackendEntry): number => byCodeUnits(a.entry, b.entry);

/** A route table entry of an Ingress: the first claim of each table key wins within it. */
interface TableRoute {
  readonly table: string;
  readonly exact: boolean;
  readonly route: IngressRoute;
}

const TABLE = new WeakMap<ReadIngress, readonly TableRoute[]>();
/** The table keys an Ingress claims, each once, with the route its first claim of it makes. */
export function tableRoutes(r: ReadIngress): readonly TableRoute[] {
  let routes = TABLE.get(r);
  if (!routes) {
    const seen = new Set<string>();
    const out: TableRoute[] = [];
    for (const c of r.claims) {
      const exact = c.kind === 'E';
      const table = [exact ? 'E' : 'X', c.key].join(' '); // flat: kept per claim
      if (seen.has(table)) continue;
      seen.add(table);
      out.push({ table, exact, route: routeOf(c) });
    }
    TABLE.set(r, (routes = out));
  }
  return routes;
}

function defaultOf(served: readonly ReadIngress[]): string {
  for (const r of served) if (r.defaultBackend !== undefined) return r.defaultBackend;
  return '';
}

/** The spec.tls entries of `served`, in order. */
function tlsOf(served: readonly ReadIngress[]): IngressTls[] {
  const out: IngressTls[] = [];
  for (const r of served) for (const t of r.tls) out.push(t);
  return out;
}

/** The joins of `served` (oldest first), built whole; `readable`: every selected, readable one. */
export function builtJoins(
  served: readonly ReadIngress[],
  readable: readonly ReadIngress[],
): Joins {
  const claimants = new Map<string, number>();
  for (const r of readable)
    for (const t of tableRoutes(r)) claimants.set(t.table, (claimants.get(t.table) ?? 0) + 1);
  const exact = new Map<string, IngressRoute>();
  const prefix = new Map<string, IngressRoute>();
  for (const r of served) {
    for (const t of tableRoutes(r)) {
      const table = t.exact ? exact : prefix;
      if (!table.has(t.route.key)) table.set(t.route.key, t.route);
    }
  }
  const entries = sortedFrom(
    'backends',
    served.flatMap((r) => r.backends),
    byEntry,
  );
  const candidates = new Map<string, BackendEntry[]>();
  const winners: BackendEntry[] = [];
  for (const e of entries) {
    const list = candidates.get(e.backend.name);
    if (list) {
      list.push(e);
    } else {
      candidates.set(e.backend.name, [e]);
      winners.push(e);
    }
  }
  // The tables are never changed (an update copies them): what is computed from one is kept.
  const exactRoutes = sortedFrom('exact', [...exact.values()], byKey);
  const prefixRoutes = sortedFrom('prefix', [...prefix.values()], byRank);
  recordFixed(exactRoutes);
  recordFixed(prefixRoutes);
  const tlsServed = served.filter((r) => r.tls.length > 0);
  return {
    served,
    servedObjects: served.map((r) => r.ing),
    exact: exactRoutes,
    prefix: prefixRoutes,
    winners,
    backends: winners.map((w) => w.backend),
    tls: tlsOf(tlsServed),
    tlsServed,
    defaultBackend: defaultOf(served),
    claimants,
    candidates,
  };
}

/**
 * Whether the changed Ingresses share no route table key with any other selected, readable
 * Ingress (nor with each other): then no conflict and no "first rule wins" depends on them,
 * and the joins can be updated by taking their routes and backends out and putting them in.
 */
function independent(
  claimants: ReadonlyMap<string, number>,
  removed: readonly ReadIngress[],
  added: readonly ReadIngress[],
): boolean {
  for (const r of removed)
    for (const t of tableRoutes(r)) if (claimants.get(t.table) !== 1) return false;
  const taken = new Set<string>();
  for (const r of removed) for (const t of tableRoutes(r)) taken.add(t.table);
  const claimed = new Set<string>();
  for (const r of added) {
    for (const t of tableRoutes(r)) {
      if ((claimants.get(t.table) ?? 0) > 0 && !taken.has(t.table)) return false;
      if (claimed.has(t.table)) return false;
      claimed.add(t.table);
    }
  }
  return true;
}

/**
 * The joins after the served Ingresses `removed` left and `added` came (the old and the new
 * versions of the changed ones, each selected and readable), or undefined when a full build
 * is needed: a changed Ingress shares a route table key with another (a conflict or a
 * first-rule-wins may change). `byAge` orders Ingresses as the served list is ordered.
 * `last` is used up (its maps are updated in place).
 */
export function updatedJoins(
  last: Joins,
  removed: readonly ReadIngress[],
  added: readonly ReadIngress[],
  byAge: (a: object, b: object) => number,
): Joins | undefined {
  if (!independent(last.claimants, removed, added)) return undefined;
  const ageOrder = (a: ReadIngress, b: ReadIngress): number => byAge(a.ing, b.ing);
  const served = [...last.served];
  const servedObjects = [...last.servedObjects];
  for (const r of removed) {
    const at = removeSorted(served, r, ageOrder);
    if (at < 0) return undefined;
    servedObjects.splice(at, 1);
  }
  for (const r of added) servedObjects.splice(insertSorted(served, r, ageOrder), 0, r.ing);
  // A table no changed route is in stays the same array (what was computed from it holds); a
  // changed one is a copy, recorded as the last one after its edits (map lines are updated).
  const tables = {
    exact: new SortedTable(last.exact, byKey),
    prefix: new SortedTable(last.prefix, byRank),
  };
  const { claimants } = last;
  for (const r of removed) {
    for (const t of tableRoutes(r)) {
      claimants.delete(t.table);
      (t.exact ? tables.exact : tables.prefix).remove(t.route);
    }
  }
  for (const r of added) {
    for (const t of tableRoutes(r)) {
      claimants.set(t.table, 1);
      (t.exact ? tables.exact : tables.prefix).insert(t.route);
    }
  }
  const exact = tables.exact.result();
  const prefix = tables.prefix.result();
  const winners = updatedWinners(last, removed, added);
  if (!winners) return undefined;
  const changed = [...removed, ...added];
  const tlsChanged = changed.some((r) => r.tls.length > 0);
  // The TLS entries from the (few) served Ingresses that have some, kept in served order by the
  // same edits as `served`: not a walk over every served Ingress.
  let tlsServed = last.tlsServed;
  if (tlsChanged) {
    const list = [...tlsServed];
    for (const r of removed)
      if (r.tls.length > 0 && removeSorted(list, r, ageOrder) < 0) return undefined;
    for (const r of added) if (r.tls.length > 0) insertSorted(list, r, ageOrder);
    tlsServed = list;
  }
  // The oldest served default backend: another one only when a changed Ingress has one.
  const defaultChanged = changed.some((r) => r.defaultBackend !== undefined);
  return {
    served,
    servedObjects,
    exact,
    prefix,
    winners: winners.entries,
    backends: winners.backends,
    tls: tlsChanged ? tlsOf(tlsServed) : last.tls,
    tlsServed,
    defaultBackend: defaultChanged ? defaultOf(served) : last.defaultBackend,
    claimants,
    candidates: last.candidates,
  };
}

/** The backends' first entries after the changed Ingresses' backends left and came. */
function updatedWinners(
  last: Joins,
  removed: readonly ReadIngress[],
  added: readonly ReadIngress[],
): { entries: BackendEntry[]; backends: IngressBackend[] } | undefined {
  const { candidates } = last;
  const before = new Map<string, BackendEntry | undefined>();
  const touch = (name: string): void => {
    if (!before.has(name)) before.set(name, candidates.get(name)?.[0]);
  };
  for (const r of removed) {
    for (const e of r.backends) {
      touch(e.backend.name);
      const list = candidates.get(e.backend.name);
      if (list) removeSorted(list, e, byEntry);
      if (list?.length === 0) candidates.delete(e.backend.name);
    }
  }
  for (const r of added) {
    for (const e of r.backends) {
      touch(e.backend.name);
      const list = candidates.get(e.backend.name);
      if (list) insertSorted(list, e, byEntry);
      else candidates.set(e.backend.name, [e]);
    }
  }
  const entries = [...last.winners];
  const backends = [...last.backends];
  for (const [name, was] of before) {
    const now = candidates.get(name)?.[0];
    if (now === was) continue;
    if (was) {
      const at = removeSorted(entries, was, byEntry);
      if (at < 0) return undefined;
      backends.splice(at, 1);
    }
    if (now) backends.splice(insertSorted(entries, now, byEntry), 0, now.backend);
  }
  return { entries, backends };
}
