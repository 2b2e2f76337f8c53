export type { Claim, IngressBackend, IngressRoute, IngressTls, ReadIngress } from './joins.js';
import { hostnameProblem, pathProblem } from '../filters-haproxy.js';
import { objectRef } from '../snapshot.js';
import type { RenderProblem } from '../types.js';
import {
  builtJoins,
  sortedFrom,
  updatedJoins,
  type BackendEntry,
  type Claim,
  type IngressBackend,
  type IngressRoute,
  type IngressTls,
  type Joins,
  type Kind,
  type ReadIngress,
} from './joins.js';
import {
  byCodeUnits,
  field,
  isBlank,
  isNil,
  items,
  orDefault,
  path,
  str,
} from '../liquid-values.js';
import { sameItems } from '../same-items.js';

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

/** Whose annotations an Ingress library reads (what makes an Ingress's backends its own). */
export type IngressFlavour = 'haptic' | 'ingress-nginx';

const PREFIX = 'haproxy-haptic.org/';
const SERVICE_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const PORT_NUMBER = /^[1-9][0-9]{0,4}$/;
const PORT_NAME = /^[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?$/;
/** Kubernetes names (what a real API server accepts); both end up in backend names. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const OBJECT_NAME =
  /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A refusal of the Ingress being read; ends the reading of that Ingress. */
class Refused extends Error {
  constructor(
    readonly code: 'fail' | 'invalid-value',
    message: string,
  ) {
    super(message);
  }
}

function meta(o: object): { namespace: string; name: string } {
  return {
    namespace: str(path(o, 'metadata', 'namespace')),
    name: str(path(o, 'metadata', 'name')),
  };
}

/** IngressClass selection: the names of ours and whether one of them is the default. */
function ourClasses(classes: readonly object[], controller: unknown) {
  const names: unknown[] = [];
  let hasDefault = false;
  for (const ic of classes) {
    if (path(ic, 'spec', 'controller') !== controller) continue;
    names.push(path(ic, 'metadata', 'name'));
    const annotations = path(ic, 'metadata', 'annotations');
    if (field(annotations, 'ingressclass.kubernetes.io/is-default-class') === 'true')
      hasDefault = true;
  }
  return { names, hasDefault };
}

/** How `sort_by` compares one key (missing last, numbers by value, others by code units). */
function compareKey(a: unknown, b: unknown): number {
  const aMissing = a === undefined || a === null;
  const bMissing = b === undefined || b === null;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'string' ? a : JSON.stringify(a);
  const sb = typeof b === 'string' ? b : JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** The sort keys of an Ingress (creationTimestamp, namespace, name), read once per object. */
const AGE = new WeakMap<object, readonly unknown[]>();
function ageOf(ing: object): readonly unknown[] {
  let keys = AGE.get(ing);
  if (!keys) {
    const m = field(ing, 'metadata');
    AGE.set(ing, (keys = [field(m, 'creationTimestamp'), field(m, 'namespace'), field(m, 'name')]));
  }
  return keys;
}

function byAge(x: object, y: object): number {
  const a = ageOf(x);
  const b = ageOf(y);
  for (let i = 0; i < a.length; i++) {
    const c = compareKey(a[i], b[i]);
    if (c !== 0) return c;
  }
  return 0;
}

/** Whether an Ingress names one of our classes (or none, when one of ours is the default). */
function selectedBy(classes: { names: unknown[]; hasDefault: boolean }): (ing: object) => boolean {
  return (ing) => {
    const annotations = path(ing, 'metadata', 'annotations');
    const cls = orDefault(
      field(annotations, 'kubernetes.io/ingress.class'),
      path(ing, 'spec', 'ingressClassName'),
    );
    if (isBlank(cls)) return classes.hasDefault;
    return classes.names.includes(cls);
  };
}

/** Served candidates, oldest first (creationTimestamp, namespace, name; as `sort_by`). */
export function selectIngresses(inputs: IngressInputs): object[] {
  const classes = ourClasses(inputs.ingressClasses, inputs.controllerName);
  return sortedFrom('served', inputs.ingresses.filter(selectedBy(classes)), byAge);
}

const NGINX_PREFIX = 'nginx.ingress.kubernetes.io/';

function isAnnotated(ing: object, flavour: IngressFlavour): boolean {
  const prefix = flavour === 'ingress-nginx' ? NGINX_PREFIX : PREFIX;
  const annotated = items(path(ing, 'metadata', 'annotations')).some(
    (kv) => Array.isArray(kv) && str(kv[0]).startsWith(prefix),
  );
  return annotated || (flavour === 'ingress-nginx' && items(path(ing, 'spec', 'tls')).length > 0);
}

/** Checks an Ingress backend reference and names its backend (ingress-backend-name). */
function backendOf(ing: object, id: string, rb: unknown, where: string, annotated: boolean) {
  const service = field(rb, 'service');
  const fail = (what: string): never => {
    throw new Refused('fail', `Ingress ${id}: ${where}${what}`);
  };
  if (isNil(service)) fail(' has no service (resource backends are not supported)');
  const svc = str(field(service, 'name'));
  if (!SERVICE_NAME.test(svc)) fail('.service.name is not a Service name');
  const number = path(service, 'port', 'number');
  const pname = path(service, 'port', 'name');
  let port: string;
  if (!isNil(number)) {
    port = str(number);
    if (!PORT_NUMBER.test(port) || Number(port) > 65535)
      fail('.service.port.number is not a port (1-65535)');
  } else if (!isNil(pname)) {
    port = str(pname);
    if (!PORT_NAME.test(port)) fail('.service.port.name is not a port name');
  } else {
    return fail('.service.port needs a number or a name');
  }
  const { namespace, name } = meta(ing);
  const beName = annotated
    ? `ing_${namespace}_${name}_${svc}_${port}`
    : `svc_${namespace}_${svc}_${port}`;
  return { name: beName, namespace, service: svc, port };
}

// ingress-nginx paths may be regular expressions (use-regex): also ^ | \ [ ] { } ? (never quotes,
// spaces, # or control characters); they reach map files and single-quoted regexes only.
const NGINX_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@/%^|\\[\]{}?]{0,2047}$/;

function pathProblemOf(flavour: IngressFlavour, p: string): string | undefined {
  if (flavour !== 'ingress-nginx') return pathProblem(p);
  return NGINX_PATH.test(p)
    ? undefined
    : `path ${JSON.stringify(p.slice(0, 80))} is not a URL path or regular expression of safe characters`;
}

function validated(problem: string | undefined, value: string): string {
  if (problem !== undefined) throw new Refused('invalid-value', problem);
  return value;
}

function routeKey(type: string, host: string, p: string, id: string): [Kind, string] {
  switch (type) {
    case 'Exact':
      return ['E', host + p];
    case 'Prefix':
      return ['P', `${host}${p.replace(/\/+$/, '')}/`];
    case 'ImplementationSpecific':
      return ['I', host + p];
    default:
      throw new Refused('fail', `Ingress ${id}: unknown pathType ${type}`);
  }
}

/** The routes of one Ingress (ingress-routes): throws Refused at its first problem. */
function readIngress(ing: object, flavour: IngressFlavour): ReadIngress {
  const { namespace, name } = meta(ing);
  const id = `${namespace}/${name}`;
  // Names reach backend names and map values: anything a real API server would refuse is refused.
  if (!NAMESPACE.test(namespace) || !OBJECT_NAME.test(name)) {
    const shown = JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
    throw new Refused(
      'invalid-value',
      `Ingress ${shown}: metadata.namespace or name is not a Kubernetes name`,
    );
  }
  const annotated = isAnnotated(ing, flavour);
  const backends: BackendEntry[] = [];
  const named = (rb: unknown, where: string): string => {
    const b = backendOf(ing, id, rb, where, annotated);
    const entry = `${b.name}|${b.namespace}|${b.service}|${b.port}|${name}`;
    backends.push({ entry, backend: { ...b, ingress: ing } });
    return b.name;
  };
  const spec = field(ing, 'spec');
  const def = field(spec, 'defaultBackend');
  const defaultBackend =
    isNil(def) || def === false ? undefined : named(def, 'spec.defaultBackend');
  const claims: Claim[] = [];
  let last: { svc: unknown; number: unknown; pname: unknown; be: string } | undefined;
  items(field(spec, 'rules')).forEach((rule, ri) => {
    const rawHost = field(rule, 'host');
    const host = isBlank(rawHost)
      ? '*'
      : validated(hostnameProblem(str(rawHost)), str(rawHost).toLowerCase());
    items(path(rule, 'http', 'paths')).forEach((p, pi) => {
      const rb = field(p, 'backend');
      const service = field(rb, 'service');
      const svc = field(service, 'name');
      const number = path(service, 'port', 'number');
      const pname = path(service, 'port', 'name');
      // Paths of one Ingress mostly share a backend: check and name it once.
      if (
        !last ||
        isNil(service) ||
        svc !== last.svc ||
        number !== last.number ||
        pname !== last.pname
      ) {
        const be = named(rb, `spec.rules[${ri}].http.paths[${pi}].backend`);
        last = { svc, number, pname, be };
      }
      const type = str(orDefault(field(p, 'pathType'), 'ImplementationSpecific'));
      const rawPath = str(orDefault(field(p, 'path'), '/'));
      const routePath = validated(pathProblemOf(flavour, rawPath), rawPath);
      const [kind, key] = routeKey(type, host, routePath, id);
      const owned = [kind, key].join(' '); // flat: kept per claim
      claims.push({ owned, kind, key, host, path: routePath, type, backend: last.be });
    });
  });
  return { ing, id, claims, defaultBackend, backends, tls: tlsOf(ing, namespace) };
}

/** The spec.tls entries of an Ingress that name a Secret, in order. */
function tlsOf(ing: object, namespace: string): IngressTls[] {
  const out: IngressTls[] = [];
  for (const tls of items(path(ing, 'spec', 'tls'))) {
    const secret = field(tls, 'secretName');
    if (isBlank(secret)) continue;
    out.push({ ingress: ing, namespace, secret: str(secret), hosts: items(field(tls, 'hosts')) });
  }
  return out;
}

// The index replaces an object on change and never changes one in place: what reading it gave holds while it is the same
// object, so a render re-reads only the Ingresses that changed.
// (one cache per flavour: the flavour decides backend names)
const READ: Record<IngressFlavour, WeakMap<object, ReadIngress | Refused>> = {
  haptic: new WeakMap(),
  'ingress-nginx': new WeakMap(),
};

function readIngressOnce(ing: object, flavour: IngressFlavour): ReadIngress {
  let read = READ[flavour].get(ing);
  if (read === undefined) {
    try {
      read = readIngress(ing, flavour);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      read = err;
    }
    READ[flavour].set(ing, read);
  }
  if (read instanceof Refused) throw read;
  return read;
}

function refused(ing: object, err: unknown): RenderProblem {
  if (!(err instanceof Refused)) throw err;
  return {
    code: err.code,
    template: 'context:ingress',
    message: err.message,
    object: objectRef('ingresses', ing),
  };
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
