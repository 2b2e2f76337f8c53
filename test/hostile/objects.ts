import type { Pki } from './pki.js';

/** A Kubernetes object as the corpus writes it. */
export interface Obj {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly creationTimestamp?: string;
  };
  readonly [field: string]: unknown;
}

/** Where the corpus's Services send traffic (the live leg points it at a real echo backend). */
export interface Backend {
  readonly ip: string;
  readonly port: number;
}

export const NS = 'apps';
export const CONTROLLER = 'haproxy-haptic.org/ingress-controller';
export const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

export function service(ns: string, name: string, portName = 'http', port = 8080): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: ns, name },
    spec: { ports: [{ name: portName, port, targetPort: port }] },
  };
}

export function slice(
  ns: string,
  svc: string,
  backend: Backend,
  opts: { name?: string; portName?: string; address?: string } = {},
): Obj {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: ns,
      name: opts.name ?? `${svc}-1`,
      labels: { 'kubernetes.io/service-name': svc },
    },
    addressType: 'IPv4',
    ports: [{ name: opts.portName ?? 'http', port: backend.port }],
    endpoints: [{ addresses: [opts.address ?? backend.ip], conditions: { ready: true } }],
  };
}

export function tlsSecret(ns: string, name: string, data: Record<string, string>): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ns, name },
    type: 'kubernetes.io/tls',
    data,
  };
}

export function pemData(crt: string, key: string): Record<string, string> {
  return { 'tls.crt': b64(crt), 'tls.key': b64(key) };
}

/** One Ingress with one rule and one path; every part can be overridden. */
export interface IngressShape {
  readonly ns?: string;
  readonly name: string;
  readonly host: string;
  readonly path?: string;
  readonly pathType?: string;
  readonly service?: string;
  readonly port?: { number: number } | { name: string };
  readonly annotations?: Record<string, string>;
  readonly tls?: { hosts: string[]; secretName: string }[];
  readonly created?: string;
  readonly extraSpec?: Record<string, unknown>;
}

export function ingress(s: IngressShape): Obj {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace: s.ns ?? NS,
      name: s.name,
      creationTimestamp: s.created ?? '2025-06-01T00:00:00Z',
      ...(s.annotations ? { annotations: s.annotations } : {}),
    },
    spec: {
      ingressClassName: 'haptic',
      ...(s.tls ? { tls: s.tls } : {}),
      rules: [
        {
          host: s.host,
          http: {
            paths: [
              {
                path: s.path ?? '/',
                pathType: s.pathType ?? 'Prefix',
                backend: {
                  service: { name: s.service ?? 'echo', port: s.port ?? { number: 8080 } },
                },
              },
            ],
          },
        },
      ],
      ...(s.extraSpec ?? {}),
    },
  };
}

/** An htpasswd line (SHA-512 crypt of "secret") for the auth-secret annotation. */
export const HTPASSWD =
  'alice:$6$hostile1$GorxgWrUb2JNBHyAV2h.g1HIJgtsYt1pizTzqS53jS5xxaHaF.j/7EcbhYRGA7P/rZEWvc.8TVJgtgODZ0sc30';

export function authSecret(ns: string, name: string, auth = HTPASSWD): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ns, name },
    type: 'Opaque',
    data: { auth: b64(`${auth}\n`) },
  };
}

export function caSecret(ns: string, name: string, ca: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ns, name },
    type: 'Opaque',
    data: { 'ca.crt': b64(ca) },
  };
}

/**
 * The objects every render of the corpus holds besides the case's own: a class, a Service with
 * an endpoint, a TLS Secret, a plain Ingress and an annotated one. `good.example.com` and
 * `annotated.example.com` must keep being served whatever the case adds.
 */
export function baseObjects(pki: Pki, backend: Backend): Obj[] {
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: CONTROLLER },
    },
    service(NS, 'echo'),
    slice(NS, 'echo', backend),
    tlsSecret(NS, 'tls-good', pemData(pki.good.crt, pki.good.key)),
    ingress({
      name: 'good',
      host: 'good.example.com',
      created: '2025-01-01T00:00:00Z',
      tls: [{ hosts: ['good.example.com'], secretName: 'tls-good' }],
    }),
    ingress({
      name: 'annotated',
      host: 'annotated.example.com',
      created: '2025-01-02T00:00:00Z',
      annotations: {
        'haproxy-haptic.org/request-headers': 'X-Base: base value',
        'haproxy-haptic.org/timeout-server': '30s',
      },
    }),
  ];
}
