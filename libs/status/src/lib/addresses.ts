import { isIP } from 'node:net';

/** One entry of `status.loadBalancer.ingress` (Ingress and Service alike). */
export interface LoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
}

/** `spec.controller.status` as the status writer reads it. */
export interface PublishSettings {
  readonly publishService?: string | undefined;
  readonly addresses: readonly string[];
}

/** The parts of a Service and Nodes that decide the published address. */
export interface PublishedService {
  readonly spec?: {
    readonly type?: string;
    readonly clusterIP?: string;
    readonly externalIPs?: readonly string[];
  };
  readonly status?: {
    readonly loadBalancer?: { readonly ingress?: readonly LoadBalancerIngress[] };
  };
}

export interface NodeAddresses {
  readonly status?: {
    readonly addresses?: readonly { readonly type?: string; readonly address?: string }[];
  };
}

/** An address as a status entry: an IP as `ip`, anything else as `hostname`. */
export function entryOf(address: string): LoadBalancerIngress {
  return isIP(address) ? { ip: address } : { hostname: address };
}

function dedupe(entries: readonly LoadBalancerIngress[]): LoadBalancerIngress[] {
  const seen = new Set<string>();
  const out: LoadBalancerIngress[] = [];
  for (const e of entries) {
    const key = `${e.ip ?? ''}|${e.hostname ?? ''}`;
    if (seen.has(key) || (!e.ip && !e.hostname)) continue;
    seen.add(key);
    out.push(e.ip ? { ip: e.ip } : { hostname: e.hostname ?? '' });
  }
  return out.sort((a, b) => (a.ip ?? a.hostname ?? '').localeCompare(b.ip ?? b.hostname ?? ''));
}

/** A Node's reachable address: its ExternalIP, else its InternalIP (as ingress-nginx picks). */
function nodeAddress(node: NodeAddresses): string | undefined {
  const list = node.status?.addresses ?? [];
  const of = (t: string) => list.find((a) => a.type === t && a.address)?.address;
  return of('ExternalIP') ?? of('InternalIP');
}

/**
 * The addresses a published Service stands for: LoadBalancer → its load-balancer ingress;
 * NodePort → the Nodes' addresses; otherwise (and in addition) its externalIPs, and for
 * ClusterIP with none of those its cluster IP.
 */
export function serviceAddresses(
  service: PublishedService,
  nodes: readonly NodeAddresses[],
): LoadBalancerIngress[] {
  const type = service.spec?.type ?? 'ClusterIP';
  const external = (service.spec?.externalIPs ?? []).map(entryOf);
  if (type === 'LoadBalancer')
    return dedupe([...(service.status?.loadBalancer?.ingress ?? []), ...external]);
  if (type === 'NodePort')
    return dedupe([...nodes.flatMap((n) => nodeAddress(n) ?? []).map(entryOf), ...external]);
  const cluster = service.spec?.clusterIP;
  if (external.length === 0 && cluster && cluster !== 'None') return [entryOf(cluster)];
  return dedupe(external);
}

/** The fixed addresses of the settings as status entries (sorted, without duplicates). */
export function fixedAddresses(settings: PublishSettings): LoadBalancerIngress[] {
  return dedupe(settings.addresses.map(entryOf));
}

/** Whether two status entry lists say the same (order-insensitive). */
export function sameEntries(
  a: readonly LoadBalancerIngress[],
  b: readonly LoadBalancerIngress[],
): boolean {
  const key = (l: readonly LoadBalancerIngress[]) => JSON.stringify(dedupe(l));
  return key(a) === key(b);
}
