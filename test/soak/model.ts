// The soak's own model of the API state and what HAProxy must serve for it. The expectation is
// computed here from the objects, by the Ingress rules (Exact before Prefix, longest prefix
// first, element-wise prefixes), never by the controller's render.

/** A small seeded generator (mulberry32): the same seed gives the same run. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  subset<T>(xs: readonly T[]): T[] {
    return xs.filter(() => this.chance(0.5));
  }
}

export const NS = 'apps';
export const PORT_NAME = 'http';
export const SERVICES = ['svc-a', 'svc-b', 'svc-c'] as const;
export const INGRESSES = 6;
/** Paths the Ingresses may name, and the request paths probed on every host. */
export const RULE_PATHS = ['/', '/a', '/a/b', '/b', '/c'] as const;
export const PROBE_PATHS = ['/', '/a', '/a/b', '/a/bc', '/ab', '/b/x', '/c', '/c/d', '/z'] as const;

export interface PathRule {
  readonly path: string;
  readonly pathType: 'Prefix' | 'Exact';
  readonly service: string;
}

/** One Ingress: host `h<k>.soak.example`, one rule with its paths. */
export interface IngressModel {
  readonly index: number;
  readonly paths: readonly PathRule[];
}

/** An endpoint: one echo pod, ready or not. */
export interface EndpointModel {
  readonly pod: string;
  readonly ready: boolean;
}

export interface ApiModel {
  readonly ingresses: Map<number, IngressModel>;
  readonly services: Set<string>;
  /** Endpoints of each Service's one EndpointSlice (absent: no slice). */
  readonly slices: Map<string, readonly EndpointModel[]>;
}

export const hostOf = (i: number): string => `h${i}.soak.example`;
export const ingressName = (i: number): string => `ing-${i}`;
export const sliceName = (svc: string): string => `${svc}-slice`;

/** The expected answer to one request: a status and, for 200, the pods allowed to answer. */
export interface Expected {
  readonly status: 200 | 404 | 503;
  readonly pods?: readonly string[];
}

/** Whether a Prefix rule path matches a request path (element-wise, trailing slash ignored). */
export function prefixMatches(rule: string, path: string): boolean {
  const r = rule.replace(/\/+$/, '');
  if (r === '') return true;
  return path === r || path.startsWith(`${r}/`);
}

/** What a request for `host` + `path` must get under the API state `m`. */
export function expected(m: ApiModel, host: string, path: string): Expected {
  const ing = [...m.ingresses.values()].find((i) => hostOf(i.index) === host);
  if (!ing) return { status: 404 };
  const exact = ing.paths.find((p) => p.pathType === 'Exact' && p.path === path);
  const prefix = ing.paths
    .filter((p) => p.pathType === 'Prefix' && prefixMatches(p.path, path))
    .sort((a, b) => b.path.replace(/\/+$/, '').length - a.path.replace(/\/+$/, '').length)[0];
  const rule = exact ?? prefix;
  if (!rule) return { status: 404 };
  if (!m.services.has(rule.service)) return { status: 503 };
  const pods = (m.slices.get(rule.service) ?? []).filter((e) => e.ready).map((e) => e.pod);
  return pods.length === 0 ? { status: 503 } : { status: 200, pods };
}

/** A random Ingress: 1–3 distinct paths, each Prefix or Exact, each to a random Service. */
export function randomIngress(rng: Rng, index: number): IngressModel {
  const paths: PathRule[] = [];
  const n = 1 + rng.int(3);
  for (let k = 0; k < n; k++) {
    const path = rng.pick(RULE_PATHS);
    const pathType = rng.chance(0.7) ? 'Prefix' : 'Exact';
    if (paths.some((p) => p.path === path && p.pathType === pathType)) continue;
    paths.push({ path, pathType, service: rng.pick(SERVICES) });
  }
  return { index, paths };
}

/** Kubernetes objects for the model's parts. */
export function ingressObject(i: IngressModel): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace: NS, name: ingressName(i.index) },
    spec: {
      ingressClassName: 'haptic',
      rules: [
        {
          host: hostOf(i.index),
          http: {
            paths: i.paths.map((p) => ({
              path: p.path,
              pathType: p.pathType,
              backend: { service: { name: p.service, port: { number: 80 } } },
            })),
          },
        },
      ],
    },
  };
}

export function serviceObject(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: NS, name },
    spec: { ports: [{ name: PORT_NAME, port: 80, targetPort: PORT_NAME }] },
  };
}

export function sliceObject(
  svc: string,
  endpoints: readonly EndpointModel[],
  ipOf: (pod: string) => string,
  port: number,
): Record<string, unknown> {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: NS,
      name: sliceName(svc),
      labels: { 'kubernetes.io/service-name': svc },
    },
    addressType: 'IPv4',
    ports: [{ name: PORT_NAME, port }],
    endpoints: endpoints.map((e) => ({
      addresses: [ipOf(e.pod)],
      conditions: { ready: e.ready },
      targetRef: { kind: 'Pod', namespace: NS, name: e.pod },
    })),
  };
}
