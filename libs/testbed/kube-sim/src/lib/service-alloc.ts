import { randomInt } from 'node:crypto';
import type { StatusCause } from './status.js';
import { isObject, type KubeObject } from './types.js';

/** A value as text in a message: strings as they are, anything else as JSON. */
const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** kube-apiserver's defaults: --service-cluster-ip-range 10.96.0.0/12, --service-node-port-range 30000-32767. */
export const SERVICE_CIDR = '10.96.0.0/12';
export const NODE_PORT_RANGE = { first: 30000, last: 32767 } as const;

type Spec = Record<string, unknown>;
type Port = Record<string, unknown>;

/** What other Services hold: cluster IPs and `<protocol>/<nodePort>` keys. */
export interface InUse {
  readonly ips: Pick<ReadonlySet<string>, 'has'>;
  readonly nodePorts: Pick<ReadonlySet<string>, 'has'>;
}

function ipToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((a, p) => a * 256 + p, 0);
}

function intToIp(n: number): string {
  return [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
}

/** A CIDR's usable range: network and broadcast addresses excluded, as the real allocator does. */
function cidrRange(cidr: string): { lo: number; hi: number } {
  const [base, bits] = cidr.split('/');
  const b = ipToInt(base ?? '');
  const n = Number(bits);
  if (b === undefined || !Number.isInteger(n) || n < 8 || n > 30)
    throw new Error(`service CIDR ${cidr} must be an IPv4 CIDR between /8 and /30`);
  const size = 2 ** (32 - n);
  const net = b - (b % size);
  return { lo: net + 1, hi: net + size - 2 };
}

const needsClusterIP = (spec: Spec): boolean => spec.type !== 'ExternalName';
const needsNodePorts = (spec: Spec): boolean =>
  spec.type === 'NodePort' ||
  (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const portKey = (p: Port, nodePort: unknown): string =>
  `${typeof p.protocol === 'string' ? p.protocol : 'TCP'}/${text(nodePort)}`;

/** The cluster IP and node-port keys one Service holds. */
function heldBy(s: KubeObject): { ips: string[]; nodePorts: string[] } {
  const spec = isObject(s.spec) ? s.spec : {};
  const nodePorts: string[] = [];
  for (const p of Array.isArray(spec.ports) ? spec.ports : [])
    if (isObject(p) && typeof p.nodePort === 'number') nodePorts.push(portKey(p, p.nodePort));
  return { ips: typeof spec.clusterIP === 'string' ? [spec.clusterIP] : [], nodePorts };
}

/**
 * What every stored Service holds, kept up to date one write at a time, so allocating for one
 * Service costs the same at 10 or 10,000 Services (a scan of all of them per create is quadratic).
 */
export class ServiceUsage {
  private readonly held = new Map<string, { ips: string[]; nodePorts: string[] }>();
  private readonly ips = new Map<string, number>();
  private readonly nodePorts = new Map<string, number>();

  /** Records what the Service under `key` holds now (replacing what it held). */
  set(key: string, service: KubeObject): void {
    this.delete(key);
    const h = heldBy(service);
    this.held.set(key, h);
    for (const ip of h.ips) bump(this.ips, ip, 1);
    for (const p of h.nodePorts) bump(this.nodePorts, p, 1);
  }

  /** Forgets the Service under `key`. */
  delete(key: string): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    for (const ip of h.ips) bump(this.ips, ip, -1);
    for (const p of h.nodePorts) bump(this.nodePorts, p, -1);
  }

  /** What every Service but `except` holds. */
  others(except?: { namespace?: string | undefined; name?: string | undefined }): InUse {
    const own = except?.name
      ? this.held.get(`${except.namespace ?? ''}/${except.name}`)
      : undefined;
    const view = (counts: Map<string, number>, mine: readonly string[] = []) => ({
      has: (k: string): boolean => (counts.get(k) ?? 0) - mine.filter((m) => m === k).length > 0,
    });
    return { ips: view(this.ips, own?.ips), nodePorts: view(this.nodePorts, own?.nodePorts) };
  }
}

function bump(counts: Map<string, number>, k: string, by: number): void {
  const n = (counts.get(k) ?? 0) + by;
  if (n > 0) counts.set(k, n);
  else counts.delete(k);
}

/**
 * kube-apiserver's Service allocators and their update rules (`patchAllocatedValues`,
 * `dropTypeDependentFields`, the immutability of `clusterIP`): a cluster IP from the service CIDR
 * (random, as the real bitmap allocator picks), `None` for headless Services of type ClusterIP,
 * node ports from 30000–32767 for NodePort and LoadBalancer Services, a requested IP or port
 * refused when outside the range or held by another Service. Returns the Service to store, or the
 * causes of a 422.
 */
export class ServiceAllocator {
  private readonly range: { lo: number; hi: number };

  constructor(readonly cidr: string = SERVICE_CIDR) {
    this.range = cidrRange(cidr);
  }

  allocate(
    svc: KubeObject,
    old: KubeObject | undefined,
    used: InUse,
  ): { object: KubeObject; causes: StatusCause[] } {
    const causes: StatusCause[] = [];
    const spec: Spec = isObject(svc.spec) ? { ...svc.spec } : {};
    const oldSpec: Spec | undefined = old && isObject(old.spec) ? old.spec : undefined;
    if (Array.isArray(spec.ports))
      spec.ports = (spec.ports as unknown[]).map((p) => (isObject(p) ? { ...p } : p));
    if (oldSpec) this.patchAllocated(spec, oldSpec);
    if (needsClusterIP(spec)) this.clusterIP(spec, oldSpec, used, causes);
    else if (spec.clusterIP !== undefined && spec.clusterIP !== '' && spec.clusterIP !== null)
      causes.push({
        reason: 'FieldValueForbidden',
        field: 'spec.clusterIP',
        message: 'spec.clusterIP: Forbidden: may not be set for ExternalName services',
      });
    else {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    this.nodePorts(spec, used, causes);
    return { object: { ...svc, spec }, causes };
  }

  /** On update, what the client left out is kept from the stored object (kubectl apply, PUT without them). */
  private patchAllocated(spec: Spec, old: Spec): void {
    if (needsClusterIP(old) && needsClusterIP(spec)) {
      if (spec.clusterIP === undefined || spec.clusterIP === '') spec.clusterIP = old.clusterIP;
      if (spec.clusterIPs === undefined && spec.clusterIP === old.clusterIP)
        spec.clusterIPs = old.clusterIPs;
    }
    const oldPorts = (Array.isArray(old.ports) ? old.ports : []).filter(isObject);
    const ports = (Array.isArray(spec.ports) ? spec.ports : []).filter(isObject);
    const same = (p: Port, q: Port): boolean =>
      p.port === q.port && (p.protocol ?? 'TCP') === (q.protocol ?? 'TCP');
    if (needsNodePorts(old) && needsNodePorts(spec)) {
      for (const p of ports) {
        if (p.nodePort === undefined || p.nodePort === 0) {
          const o = oldPorts.find((q) => same(p, q));
          if (o?.nodePort !== undefined) p.nodePort = o.nodePort;
        }
      }
    } else if (needsNodePorts(old) && !needsNodePorts(spec)) {
      // Node ports the client did not change go with the type that needed them.
      for (const p of ports) {
        const o = oldPorts.find((q) => same(p, q));
        if (o !== undefined && p.nodePort === o.nodePort) delete p.nodePort;
      }
    }
  }

  private clusterIP(spec: Spec, oldSpec: Spec | undefined, used: InUse, causes: StatusCause[]) {
    const ip = spec.clusterIP;
    if (oldSpec && needsClusterIP(oldSpec) && oldSpec.clusterIP !== undefined) {
      if (ip !== oldSpec.clusterIP) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs[0]',
          message: `spec.clusterIPs[0]: Invalid value: ${JSON.stringify(ip ?? '')}: may not change once set`,
        });
      }
      return;
    }
    if (ip === 'None') {
      if (spec.type !== undefined && spec.type !== 'ClusterIP')
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs[0]',
          message: `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for ${text(spec.type)} services`,
        });
      spec.clusterIPs = ['None'];
      return;
    }
    if (ip === undefined || ip === '' || ip === null) {
      const picked = this.free(used);
      if (picked === undefined) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'spec.clusterIPs',
          message: `spec.clusterIPs: Invalid value: []: failed to allocate IP: range is full`,
        });
        return;
      }
      spec.clusterIP = picked;
      spec.clusterIPs = [picked];
      return;
    }
    const n = typeof ip === 'string' ? ipToInt(ip) : undefined;
    const bad = (why: string): void => {
      causes.push({
        reason: 'FieldValueInvalid',
        field: 'spec.clusterIPs',
        message: `spec.clusterIPs: Invalid value: ["${text(ip)}"]: failed to allocate IP ${text(ip)}: ${why}`,
      });
    };
    if (n === undefined) bad('must be a valid IP address');
    else if (n < this.range.lo || n > this.range.hi)
      bad(
        `the provided IP (${text(ip)}) is not in the valid range. The range of valid IPs is ${this.cidr}`,
      );
    else if (used.ips.has(ip as string)) bad('provided IP is already allocated');
    else spec.clusterIPs = [ip];
  }

  private free(used: InUse): string | undefined {
    const size = this.range.hi - this.range.lo + 1;
    const start = randomInt(size);
    for (let i = 0; i < size; i++) {
      const ip = intToIp(this.range.lo + ((start + i) % size));
      if (!used.ips.has(ip)) return ip;
    }
    return undefined;
  }

  private nodePorts(spec: Spec, used: InUse, causes: StatusCause[]): void {
    const ports = Array.isArray(spec.ports) ? spec.ports : [];
    const needs = needsNodePorts(spec);
    const mine = new Set<string>();
    ports.forEach((p, i) => {
      if (!isObject(p) || p.nodePort === undefined || p.nodePort === 0) return;
      const field = `spec.ports[${i}].nodePort`;
      if (!needs) {
        if (spec.type === 'ClusterIP' || spec.type === undefined)
          causes.push({
            reason: 'FieldValueForbidden',
            field,
            message: `${field}: Forbidden: may not be used when \`type\` is 'ClusterIP'`,
          });
        return;
      }
      const n = p.nodePort;
      const key = portKey(p, n);
      const invalid = (why: string): void => {
        causes.push({
          reason: 'FieldValueInvalid',
          field,
          message: `${field}: Invalid value: ${text(n)}: ${why}`,
        });
      };
      if (typeof n !== 'number' || n < NODE_PORT_RANGE.first || n > NODE_PORT_RANGE.last)
        invalid(
          `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.first}-${NODE_PORT_RANGE.last}`,
        );
      else if (mine.has(key))
        causes.push({
          reason: 'FieldValueDuplicate',
          field,
          message: `${field}: Duplicate value: ${text(n)}`,
        });
      else if (used.nodePorts.has(key)) invalid('provided port is already allocated');
      mine.add(key);
    });
    if (!needs) return;
    const size = NODE_PORT_RANGE.last - NODE_PORT_RANGE.first + 1;
    ports.forEach((p, i) => {
      if (!isObject(p) || (p.nodePort !== undefined && p.nodePort !== 0)) return;
      const start = randomInt(size);
      for (let k = 0; k < size; k++) {
        const n = NODE_PORT_RANGE.first + ((start + k) % size);
        const key = portKey(p, n);
        if (used.nodePorts.has(key) || mine.has(key)) continue;
        p.nodePort = n;
        mine.add(key);
        return;
      }
      causes.push({
        reason: 'FieldValueInvalid',
        field: `spec.ports[${i}].nodePort`,
        message: `spec.ports[${i}].nodePort: Invalid value: 0: failed to allocate a nodePort: range is full`,
      });
    });
  }
}
