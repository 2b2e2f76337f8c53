// service-upstream: the backend's one server is the Service's cluster IP and port (kube-proxy
// balances), as ingress-nginx's getServiceClusterEndpoint picks it. A Service without a cluster IP
// (headless `None`, ExternalName, not yet allocated) keeps its endpoints, as ingress-nginx falls
// back to them when it finds no cluster IP.
import { toValue, type Context } from 'liquidjs';
import { outputText } from '../escaper.js';
import { lookup } from '../filters-context.js';
import { allocateSlots, type ServerSlot } from '../ingress/servers.js';
import { field, items, path, str } from '../liquid-values.js';

const IPV4 =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])([.](25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
const IPV6 = /^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}$/;
const DIGITS = /^[0-9]{1,5}$/;

/** The Service port an Ingress backend names (a number as given, a name looked up), or undefined. */
function servicePort(service: unknown, port: string): number | undefined {
  if (DIGITS.test(port)) return Number(port);
  for (const sp of items(path(service, 'spec', 'ports')))
    if (field(sp, 'name') === port) {
      const n = Number(field(sp, 'port'));
      return Number.isInteger(n) ? n : undefined;
    }
  return undefined;
}

/**
 * The server address (`ip:port`, `[ip6]:port`) of a Service's cluster IP for the Ingress backend's
 * port (number or name), or undefined when the Service has no usable cluster IP or no such port.
 */
export function clusterAddress(service: unknown, port: string): string | undefined {
  if (service === undefined || service === null) return undefined;
  const ip = str(path(service, 'spec', 'clusterIP'));
  const p = servicePort(service, port);
  if (p === undefined || p < 1 || p > 65535) return undefined;
  if (IPV4.test(ip)) return `${ip}:${p}`;
  if (IPV6.test(ip)) return `[${ip}]:${p}`;
  return undefined;
}

/**
 * The server slots of a service-upstream backend: its Service's cluster IP in the first slot (kept
 * there by the slot machinery), or undefined when the Service has none (the endpoints serve).
 */
export function clusterSlots(
  ctx: Context,
  servicesList: unknown,
  backend: unknown,
  slots: number,
  deployed: unknown,
): ServerSlot[] | undefined {
  const keys = [outputText(field(backend, 'namespace')), outputText(field(backend, 'service'))];
  const service = lookup(ctx, 'nginx_backend', servicesList, keys)[0];
  const address = clusterAddress(service, outputText(field(backend, 'port')));
  if (address === undefined) return undefined;
  const previous: unknown = toValue(deployed);
  const kept = Array.isArray(previous) ? (previous as object[]) : [];
  return allocateSlots(new Map([[address, '1']]), slots, kept);
}
