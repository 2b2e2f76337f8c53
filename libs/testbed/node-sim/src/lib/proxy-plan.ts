import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { SERVICE_NAME_LABEL, serviceKey, slicesByService } from './endpoint-slices.js';

/** Where a connection is sent. */
export interface Backend {
  readonly ip: string;
  readonly port: number;
}

/** One address:port node-sim listens on for a Service port, and where it forwards. */
export interface ProxyRule {
  /** `ip:port` */
  readonly key: string;
  readonly ip: string;
  readonly port: number;
  /** `namespace/name:port` (the port's name, else its number). */
  readonly service: string;
  /** What opened this listener: the node port, the cluster IP or the load balancer address. */
  readonly via: 'nodePort' | 'clusterIP' | 'loadBalancer';
  readonly backends: readonly Backend[];
}

const isLoopback = (ip: string): boolean => /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);

/**
 * The endpoints kube-proxy sends new connections to, for one Service port: ready endpoints of the
 * Service's EndpointSlices (`ready` unset counts as ready, as the API documents) that are not
 * terminating; when there is none, the serving terminating ones (kube-proxy's terminating-endpoint
 * fallback). TCP only.
 */
export function backendsFor(
  svc: V1Service,
  portName: string,
  slices: readonly V1EndpointSlice[],
): Backend[] {
  const ns = svc.metadata?.namespace;
  const name = svc.metadata?.name;
  const ready: Backend[] = [];
  const fallback: Backend[] = [];
  const seen = new Set<string>();
  for (const s of slices) {
    if (s.metadata?.namespace !== ns || s.metadata?.labels?.[SERVICE_NAME_LABEL] !== name) continue;
    if (s.addressType !== undefined && s.addressType !== 'IPv4') continue;
    const sp = (s.ports ?? []).find(
      (p) => (p.name ?? '') === portName && (p.protocol ?? 'TCP') === 'TCP',
    );
    if (sp?.port === undefined) continue;
    for (const e of s.endpoints ?? []) {
      const ip = e.addresses?.[0];
      if (ip === undefined) continue;
      const key = `${ip}:${sp.port}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const c = e.conditions ?? {};
      if (c.terminating === true) {
        if (c.serving === true) fallback.push({ ip, port: sp.port });
      } else if (c.ready !== false) ready.push({ ip, port: sp.port });
    }
  }
  const order = (a: Backend, b: Backend): number =>
    a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1;
  return (ready.length > 0 ? ready : fallback).sort(order);
}

/**
 * What node-sim's kube-proxy listens on: every TCP port of every Service with a node port on
 * `<node IP>:<nodePort>`, on `<clusterIP>:<port>` when the cluster IP is a loopback address (a
 * kube-sim started with a loopback service range), and for LoadBalancer Services on
 * `<load balancer IP>:<port>` (the node IP, as k3s's service load balancer reports it).
 */
export function planProxy(
  services: readonly V1Service[],
  slices: readonly V1EndpointSlice[],
  nodeIP: string,
): ProxyRule[] {
  const rules = new Map<string, ProxyRule>();
  const bySvc = slicesByService(slices);
  for (const svc of services) {
    const spec = svc.spec;
    if (spec === undefined || spec.type === 'ExternalName' || svc.metadata?.deletionTimestamp)
      continue;
    for (const p of spec.ports ?? []) {
      if ((p.protocol ?? 'TCP') !== 'TCP') continue;
      const service = `${svc.metadata?.namespace}/${svc.metadata?.name}:${p.name || p.port}`;
      const backends = backendsFor(svc, p.name ?? '', bySvc.get(serviceKey(svc)) ?? []);
      const add = (ip: string, port: number, via: ProxyRule['via']): void => {
        const key = `${ip}:${port}`;
        // A node port is the allocator's to give; otherwise first come keeps the address:port.
        const held = rules.get(key);
        if (held === undefined || (via === 'nodePort' && held.via !== 'nodePort'))
          rules.set(key, { key, ip, port, service, via, backends });
      };
      if (p.nodePort) add(nodeIP, p.nodePort, 'nodePort');
      const cip = spec.clusterIP;
      if (cip !== undefined && cip !== 'None' && isLoopback(cip)) add(cip, p.port, 'clusterIP');
      if (spec.type === 'LoadBalancer') add(nodeIP, p.port, 'loadBalancer');
    }
  }
  return [...rules.values()];
}
