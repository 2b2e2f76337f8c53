// ssl-passthrough: the hosts whose TLS connections go, undecrypted and routed by SNI, to a
// Service, as ingress-nginx's TCP proxy (--enable-ssl-passthrough) sends them. A host is passed
// through when the oldest Ingress naming it carries the annotation (that Ingress makes
// ingress-nginx's server for the host); the Service is the one of the host's root location: the
// first served Ingress's rule path `/` for the host, else that oldest Ingress's spec.defaultBackend.
import { field, isNil, items, path, str } from '../liquid-values.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { NginxReader, ingressIdOf } from './reader.js';

const ANNOTATION = `${NGINX_PREFIX}ssl-passthrough`;
const HOST = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/** One passed-through host: its lower-case SNI and the TCP backend its connections go to. */
export interface PassthroughRoute {
  readonly host: string;
  readonly backend: string;
}

/** A TCP backend of passed-through connections: a Service port's endpoints. */
export interface PassthroughBackend {
  /** `pt_<ns>_<service>_<port>`. */
  readonly name: string;
  readonly namespace: string;
  readonly service: string;
  /** The Service port, a number (as text) or a name. */
  readonly port: string;
}

/** An Ingress whose ssl-passthrough does nothing, and why (a notice names it). */
export interface PassthroughUnread {
  readonly ing: object;
  readonly detail: string;
}

/** What the library renders for ssl-passthrough (empty: the HTTPS listener terminates TLS). */
export interface NginxPassthrough {
  /** By host. */
  readonly routes: readonly PassthroughRoute[];
  /** By name, once each. */
  readonly backends: readonly PassthroughBackend[];
}

export const NO_PASSTHROUGH: NginxPassthrough = Object.freeze({ routes: [], backends: [] });

/** Whether an Ingress asks for ssl-passthrough (a value other than true/false refuses it). */
export function wantsPassthrough(ing: object): boolean {
  if (isNil(field(path(ing, 'metadata', 'annotations'), ANNOTATION))) return false;
  return new NginxReader(ing, {}).flag('ssl-passthrough', false);
}

interface ServiceRef {
  readonly service: string;
  readonly port: string;
}

function serviceRefOf(backend: unknown): ServiceRef | undefined {
  const service = field(backend, 'service');
  if (isNil(service)) return undefined;
  const number = path(service, 'port', 'number');
  const port = isNil(number) ? path(service, 'port', 'name') : number;
  if (isNil(port)) return undefined;
  return { service: str(field(service, 'name')), port: str(port) };
}

/** The Service of a rule's root location (`/`, or an empty path), if it has one. */
function rootOf(rule: unknown): ServiceRef | undefined {
  for (const p of items(path(rule, 'http', 'paths'))) {
    const at = str(field(p, 'path') ?? '');
    if (at === '/' || at === '') return serviceRefOf(field(p, 'backend'));
  }
  return undefined;
}

/** The host of each rule of an Ingress, lower-cased ("" for a rule without one). */
function hostsOf(ing: object): string[] {
  return items(path(ing, 'spec', 'rules')).map((r) => str(field(r, 'host') ?? '').toLowerCase());
}

interface HostServer {
  /** The oldest Ingress naming the host: it decides whether it is passed through. */
  readonly first: object;
  /** The root location's Ingress and Service. */
  root: { readonly ing: object; readonly ref: ServiceRef } | undefined;
}

/** ingress-nginx's servers: each host's oldest Ingress, and its root location's Service. */
function serversOf(served: readonly object[]): Map<string, HostServer> {
  const servers = new Map<string, HostServer>();
  for (const ing of served)
    for (const rule of items(path(ing, 'spec', 'rules'))) {
      const host = str(field(rule, 'host') ?? '').toLowerCase();
      let server = servers.get(host);
      if (!server) servers.set(host, (server = { first: ing, root: undefined }));
      const ref = server.root === undefined ? rootOf(rule) : undefined;
      if (ref) server.root = { ing, ref };
    }
  for (const server of servers.values()) {
    if (server.root !== undefined) continue;
    const ref = serviceRefOf(path(server.first, 'spec', 'defaultBackend'));
    if (ref) server.root = { ing: server.first, ref };
  }
  return servers;
}

function backendOf(ing: object, ref: ServiceRef): PassthroughBackend {
  const namespace = str(path(ing, 'metadata', 'namespace'));
  return {
    name: `pt_${namespace}_${ref.service}_${ref.port}`,
    namespace,
    ...ref,
  };
}

/** Why a host of a passthrough Ingress is not passed through, or undefined when it is. */
function hostProblem(
  host: string,
  ing: object,
  server: HostServer | undefined,
): string | undefined {
  if (host === '') return 'a rule without a host is never passed through (no SNI names it)';
  if (!HOST.test(host))
    return `host ${host} is not passed through: ingress-nginx matches the SNI exactly, so a wildcard host never is`;
  if (server?.first !== ing)
    return `host ${host} is not passed through: its oldest Ingress, ${ingressIdOf(server?.first ?? ing)}, does not ask for it (as ingress-nginx, that Ingress decides)`;
  if (server.root === undefined)
    return `host ${host} is not passed through: no rule path / and no spec.defaultBackend gives it a Service (as ingress-nginx)`;
  return undefined;
}

/**
 * The passed-through hosts of the served Ingresses (oldest first) and their TCP backends, with
 * `enabled` (the library's enable_ssl_passthrough); every Ingress asking for it in vain is listed
 * with the reason.
 */
export function passthroughOf(
  served: readonly object[],
  enabled: boolean,
): { readonly passthrough: NginxPassthrough; readonly unread: readonly PassthroughUnread[] } {
  const asking = served.filter(wantsPassthrough);
  if (asking.length === 0) return { passthrough: NO_PASSTHROUGH, unread: [] };
  if (!enabled) {
    const detail =
      'the library setting enable_ssl_passthrough is false (as ingress-nginx without --enable-ssl-passthrough): its hosts are served with TLS terminated';
    return { passthrough: NO_PASSTHROUGH, unread: asking.map((ing) => ({ ing, detail })) };
  }
  const servers = serversOf(served);
  const routes = new Map<string, PassthroughRoute>();
  const backends = new Map<string, PassthroughBackend>();
  const unread: PassthroughUnread[] = [];
  for (const ing of asking)
    for (const host of new Set(hostsOf(ing))) {
      const server = servers.get(host);
      const problem = hostProblem(host, ing, server);
      if (problem !== undefined || server?.root === undefined) {
        unread.push({ ing, detail: problem ?? '' });
        continue;
      }
      const backend = backendOf(server.root.ing, server.root.ref);
      backends.set(backend.name, backend);
      routes.set(host, { host, backend: backend.name });
    }
  const byKey = <T>(m: Map<string, T>): T[] => [...m.keys()].sort().map((k) => m.get(k) as T);
  return { passthrough: { routes: byKey(routes), backends: byKey(backends) }, unread };
}
