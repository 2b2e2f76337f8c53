// Reading one Ingress into its routes, backends and TLS entries (ingress-routes): the checks
// of names, ports and paths, the route claims, and a cache per object (the index replaces an
// object on change, never changes one in place). A problem refuses that Ingress only.
import { hostnameProblem, pathProblem } from '../filters-haproxy.js';
import { objectRef } from '../snapshot.js';
import type { RenderProblem } from '../types.js';
import {
  type BackendEntry,
  type Claim,
  type IngressTls,
  type Kind,
  type ReadIngress,
} from './joins.js';
import { field, isBlank, isNil, items, orDefault, path, str } from '../liquid-values.js';

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
export class Refused extends Error {
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

/** One Ingress as read (cached per object and flavour); throws Refused. */
export function readIngressOnce(ing: object, flavour: IngressFlavour): ReadIngress {
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

/** The problem of a refused Ingress (other errors are thrown on). */
export function refused(ing: object, err: unknown): RenderProblem {
  if (!(err instanceof Refused)) throw err;
  return {
    code: err.code,
    template: 'context:ingress',
    message: err.message,
    object: objectRef('ingresses', ing),
  };
}
