// default-backend: a Service of the Ingress's namespace answering for the Ingress's backends when
// they have no usable endpoint, as ingress-nginx does ("used when no endpoints are available").
// The Service becomes a shared svc_ backend at its first port (ingress-nginx takes the first
// port), and the frontend switches to it while the Ingress's backend has no usable server.
import type { IngressBackend } from '../ingress/model.js';
import { field, items, path, str } from '../liquid-values.js';
import { objectRef } from '../snapshot.js';
import type { RenderNotice } from '../types.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { NginxRefusal, ingressIdOf } from './reader.js';
import { globalDefaultBackendSpec } from './custom-errors.js';

/** An Ingress backend and the default backend that answers while it has no usable server. */
export interface NginxFallback {
  readonly backend: string;
  readonly fallback: string;
}

const ANNOTATION = `${NGINX_PREFIX}default-backend`;
// a Service name (RFC 1035 label): it becomes part of a backend name
const SERVICE_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The Service an Ingress's default-backend names, or undefined; a bad name refuses the Ingress. */
export function defaultBackendSpec(ing: object): string | undefined {
  const v = field(path(ing, 'metadata', 'annotations'), ANNOTATION);
  if (v === undefined || v === null) return undefined;
  const name = str(v).trim();
  if (SERVICE_NAME.test(name)) return name;
  const id = ingressIdOf(ing);
  throw new NginxRefusal(
    `Ingress ${id}: annotation ${ANNOTATION}: ${JSON.stringify(name.slice(0, 80))} is not a Service name`,
  );
}

/** The first port of a Service as a number (text), or undefined when it has none. */
function firstPort(service: object): string | undefined {
  const first = items(path(service, 'spec', 'ports'))[0];
  const n = field(first, 'port');
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536 ? String(n) : undefined;
}

/**
 * The HAProxy backend of the default backend an Ingress names (`svc_<ns>_<service>_<port>`, its
 * first port), or undefined without one, or when the Service is missing or has no port.
 */
export function fallbackOf(
  ing: object,
  namespace: string,
  services: ((keys: readonly string[]) => readonly object[]) | undefined,
): string | undefined {
  const name = defaultBackendSpec(ing);
  if (name === undefined) return undefined;
  const service = services?.([namespace, name])[0];
  const port = service === undefined ? undefined : firstPort(service);
  return port === undefined ? undefined : `svc_${namespace}_${name}_${port}`;
}

/**
 * The library's default_backend_service as its HAProxy backend (`svc_<ns>_<name>_<port>`, first
 * port), with the Service; undefined unset, or when the Service is missing or has no port.
 */
export function globalFallbackOf(
  extra: unknown,
  services: ((keys: readonly string[]) => readonly object[]) | undefined,
):
  | {
      readonly backend: string;
      readonly namespace: string;
      readonly service: string;
      readonly port: string;
    }
  | undefined {
  const spec = globalDefaultBackendSpec(extra);
  if (spec === undefined) return undefined;
  const [namespace, name] = spec;
  const service = services?.([namespace, name])[0];
  const port = service === undefined ? undefined : firstPort(service);
  if (port === undefined) return undefined;
  return { backend: `svc_${namespace}_${name}_${port}`, namespace, service: name, port };
}

/** What default-backend adds to the model: the default backends and which backend falls to which. */
export interface DefaultBackends {
  readonly backends: readonly IngressBackend[];
  readonly fallbacks: readonly NginxFallback[];
  readonly notices: readonly RenderNotice[];
}

/**
 * The default backends of the served Ingresses: each Ingress backend (ing_*) whose Ingress names
 * a default-backend falls to that Service's shared backend. A missing Service (or one without a
 * port) is a notice and the Ingress is served without it, as ingress-nginx warns and goes on.
 */
export function defaultBackendsOf(
  backends: readonly IngressBackend[],
  services: ((keys: readonly string[]) => readonly object[]) | undefined,
): DefaultBackends {
  const known = new Set(backends.map((b) => b.name));
  const added: IngressBackend[] = [];
  const fallbacks: NginxFallback[] = [];
  const notices: RenderNotice[] = [];
  const noticed = new Set<object>();
  for (const b of backends) {
    if (!b.name.startsWith('ing_')) continue;
    const name = defaultBackendSpec(b.ingress);
    if (name === undefined) continue;
    const fallback = fallbackOf(b.ingress, b.namespace, services);
    if (fallback === undefined) {
      if (!noticed.has(b.ingress)) notices.push(missing(b.ingress, `${b.namespace}/${name}`));
      noticed.add(b.ingress);
      continue;
    }
    const port = fallback.slice(fallback.lastIndexOf('_') + 1);
    if (!known.has(fallback)) {
      known.add(fallback);
      added.push({
        name: fallback,
        namespace: b.namespace,
        service: name,
        port,
        ingress: b.ingress,
      });
    }
    fallbacks.push({ backend: b.name, fallback });
  }
  return { backends: added, fallbacks, notices };
}

function missing(ing: object, service: string): RenderNotice {
  const id = ingressIdOf(ing);
  return {
    reason: 'DefaultBackendNotFound',
    message: `Ingress ${id}: annotation ${ANNOTATION}: Service ${service} not found or without a port; served without a default backend`,
    object: objectRef('ingresses', ing),
  };
}
