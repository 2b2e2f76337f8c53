// The Ingress model a library renders from: the served Ingresses joined into routes, backends
// and TLS entries, built once per snapshot and updated for the few Ingresses that changed.
export type { Claim, IngressBackend, IngressRoute, IngressTls, ReadIngress } from './joins.js';
import type { RenderProblem } from '../types.js';
import {
  builtJoins,
  sortedFrom,
  updatedJoins,
  type IngressBackend,
  type IngressRoute,
  type IngressTls,
  type Joins,
  type ReadIngress,
} from './joins.js';
import { byCodeUnits } from '../liquid-values.js';
import { sameItems } from '../same-items.js';
import { Refused, readIngressOnce, refused, type IngressFlavour } from './read-ingress.js';
import { byAge, ourClasses, selectedBy } from './select.js';

export type { IngressFlavour } from './read-ingress.js';

/** What the Ingress library's outputs need, computed once per snapshot. */
export interface IngressModel {
  /** Ingresses served (class selected, valid, not in conflict), oldest first. */
  readonly served: readonly object[];
  /** Exact routes, one per key, in key order (first rule wins). */
  readonly exact_routes: readonly IngressRoute[];
  /** Prefix and ImplementationSpecific routes, longest key first, one per key. */
  readonly prefix_routes: readonly IngressRoute[];
  /** The default backend (of the oldest served Ingress that has one), or "". */
  readonly default_backend: string;
  /** Every backend, in name order, once. */
  readonly backends: readonly IngressBackend[];
  /** The spec.tls entries (naming a Secret) of the served Ingresses, oldest Ingress first. */
  readonly tls: readonly IngressTls[];
}

/** The model and the objects refused while building it (each with the reason). */
export interface IngressModelResult {
  readonly model: IngressModel;
  readonly problems: readonly RenderProblem[];
}

/** What the model reads from the snapshot and the config. */
export interface IngressInputs {
  readonly ingressClasses: readonly object[];
  readonly ingresses: readonly object[];
  readonly controllerName: unknown;
  /**
   * Which annotations give an Ingress its own backends: `haptic` (default) those under
   * haproxy-haptic.org/; `ingress-nginx` those under nginx.ingress.kubernetes.io/, and spec.tls
   * (ingress-nginx redirects a TLS host's plain-HTTP requests by default).
   */
  readonly flavour?: IngressFlavour;
}

/** Served candidates, oldest first (creationTimestamp, namespace, name; as `sort_by`). */
export function selectIngresses(inputs: IngressInputs): object[] {
  const classes = ourClasses(inputs.ingressClasses, inputs.controllerName);
  return sortedFrom('served', inputs.ingresses.filter(selectedBy(classes)), byAge);
}

/** The first claim of `r` (in claim order) that an older served Ingress already owns. */
function conflictOf(r: ReadIngress, owners: ReadonlyMap<string, string>): string | undefined {
  const lost = r.claims
    .filter((c) => {
      const owner = owners.get(c.owned);
      return owner !== undefined && owner !== r.id;
    })
    .sort((a, b) => byCodeUnits(a.owned, b.owned))[0];
  if (!lost) return undefined;
  const owner = owners.get(lost.owned) ?? '';
  return `Ingress ${r.id}: host ${lost.host} path ${lost.path} (${lost.type}) is already served by the older Ingress ${owner}; the oldest Ingress wins`;
}

/** The last model, what it was built from, and what updating it needs. */
interface Built {
  readonly inputs: IngressInputs;
  readonly result: IngressModelResult;
  readonly joins: Joins;
  /** The problems of the Ingresses that could not be read, oldest first. */
  readonly unreadable: readonly { readonly ing: object; readonly problem: RenderProblem }[];
  /** The problems of the Ingresses refused for a conflict (unchanged by an update). */
  readonly conflicts: readonly RenderProblem[];
}

// Index objects are replaced on change, so the same objects (a render after an EndpointSlice,
// Secret or config change) give the same model, and a few changed Ingresses update it.
let last: Built | undefined;

/** How the reusing models were made (full builds, updates): for tests and benches. */
export const INGRESS_MODEL_COUNTS = { built: 0, updated: 0 };

/** How many changed Ingresses an update handles before a full build is cheaper. */
const MAX_CHANGED = 64;

/** Options of `ingressModel`. */
export interface IngressModelOptions {
  /** Reuse (and keep) the last model: same objects, same result; few changes, an update. */
  readonly reuse?: boolean;
}

/**
 * The Ingress library's model of a snapshot: the served Ingresses (oldest first), their routes,
 * backends and default backend. An Ingress with an invalid host, path, path type or backend, or
 * with a route an older served Ingress already has, is refused (a problem naming it) and left out.
 * The same Ingresses and IngressClasses (by identity) give the same result object; a few changed
 * Ingresses that share no route with another update the last model instead of a full build
 * (same result as one).
 */
export function ingressModel(
  inputs: IngressInputs,
  options: IngressModelOptions = {},
): IngressModelResult {
  if (options.reuse === false) return buildModel(inputs).result;
  const was = last;
  last = undefined; // an update uses up the last joins
  if (
    was &&
    was.inputs.controllerName === inputs.controllerName &&
    was.inputs.flavour === (inputs.flavour ?? 'haptic') &&
    sameItems(was.inputs.ingressClasses, inputs.ingressClasses)
  ) {
    if (sameItems(was.inputs.ingresses, inputs.ingresses)) return (last = was).result;
    last = updatedModel(was, inputs);
    if (last) INGRESS_MODEL_COUNTS.updated++;
  }
  if (!last) {
    last = buildModel(inputs);
    INGRESS_MODEL_COUNTS.built++;
  }
  return last.result;
}

/** The objects only in `was` and only in `now` (lists in the same order), or undefined if many. */
function changes(
  was: readonly object[],
  now: readonly object[],
): { removed: object[]; added: object[] } | undefined {
  let start = 0;
  const shorter = Math.min(was.length, now.length);
  while (start < shorter && was[start] === now[start]) start++;
  let end = 0;
  while (end < shorter - start && was[was.length - 1 - end] === now[now.length - 1 - end]) end++;
  const before = was.slice(start, was.length - end);
  const after = now.slice(start, now.length - end);
  if (before.length + after.length > MAX_CHANGED) return undefined;
  const inBoth = new Set<object>(before);
  const added = after.filter((o) => !inBoth.has(o));
  const kept = new Set<object>(after);
  return { removed: before.filter((o) => !kept.has(o)), added };
}

/** The readable versions of `changed` among the selected, and the unreadable ones' problems. */
function readSelected(
  changed: readonly object[],
  selected: (ing: object) => boolean,
  flavour: IngressFlavour,
) {
  const readable: ReadIngress[] = [];
  const unreadable: { ing: object; problem: RenderProblem }[] = [];
  for (const ing of changed) {
    if (!selected(ing)) continue;
    try {
      readable.push(readIngressOnce(ing, flavour));
    } catch (err) {
      unreadable.push({ ing, problem: refused(ing, err) });
    }
  }
  return { readable, unreadable };
}

/** `was` updated for the changed Ingresses, or undefined when a full build is needed. */
function updatedModel(was: Built, inputs: IngressInputs): Built | undefined {
  const changed = changes(was.inputs.ingresses, inputs.ingresses);
  if (!changed) return undefined;
  const selected = selectedBy(ourClasses(inputs.ingressClasses, inputs.controllerName));
  const flavour = inputs.flavour ?? 'haptic';
  const gone = readSelected(changed.removed, selected, flavour);
  const come = readSelected(changed.added, selected, flavour);
  const joins = updatedJoins(was.joins, gone.readable, come.readable, byAge);
  if (!joins) return undefined;
  const unreadable = was.unreadable.filter((u) => !gone.unreadable.some((g) => g.ing === u.ing));
  for (const u of come.unreadable) {
    let at = 0;
    while (at < unreadable.length && byAge((unreadable[at] as { ing: object }).ing, u.ing) < 0)
      at++;
    unreadable.splice(at, 0, u);
  }
  return built(inputs, joins, unreadable, was.conflicts);
}

const SERVED = new WeakMap<IngressModel, readonly ReadIngress[]>();

/** The served Ingresses of a model as read (each with its route claims), oldest first. */
export function servedReadsOf(model: IngressModel): readonly ReadIngress[] {
  return SERVED.get(model) ?? [];
}

function built(
  inputs: IngressInputs,
  joins: Joins,
  unreadable: Built['unreadable'],
  conflicts: readonly RenderProblem[],
): Built {
  const model: IngressModel = {
    served: joins.servedObjects,
    exact_routes: joins.exact,
    prefix_routes: joins.prefix,
    default_backend: joins.defaultBackend,
    backends: joins.backends,
    tls: joins.tls,
  };
  SERVED.set(model, joins.served);
  return {
    inputs: {
      ingressClasses: [...inputs.ingressClasses],
      ingresses: [...inputs.ingresses],
      controllerName: inputs.controllerName,
      flavour: inputs.flavour ?? 'haptic',
    },
    result: {
      model,
      problems: [...unreadable.map((u) => u.problem), ...conflicts],
    },
    joins,
    unreadable,
    conflicts,
  };
}

function buildModel(inputs: IngressInputs): Built {
  const unreadable: { ing: object; problem: RenderProblem }[] = [];
  const read: ReadIngress[] = [];
  for (const ing of selectIngresses(inputs)) {
    try {
      read.push(readIngressOnce(ing, inputs.flavour ?? 'haptic'));
    } catch (err) {
      unreadable.push({ ing, problem: refused(ing, err) });
    }
  }
  const owners = new Map<string, string>();
  const served: ReadIngress[] = [];
  const conflicts: RenderProblem[] = [];
  for (const r of read) {
    const conflict = conflictOf(r, owners);
    if (conflict !== undefined) {
      conflicts.push(refused(r.ing, new Refused('fail', conflict)));
      continue;
    }
    for (const c of r.claims) if (!owners.has(c.owned)) owners.set(c.owned, r.id);
    served.push(r);
  }
  return built(inputs, builtJoins(served, read), unreadable, conflicts);
}
