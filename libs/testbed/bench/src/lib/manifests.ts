/** What the generated cluster holds, by watched-resource name of the Ingress library. */
export interface IngressWorld {
  readonly ingressclasses: readonly object[];
  readonly ingresses: readonly object[];
  readonly services: readonly object[];
  readonly endpointslices: readonly object[];
  readonly secrets: readonly object[];
}

/** A PEM certificate and key (both PEM text) for the generated TLS Secrets. */
export interface TlsPair {
  readonly cert: string;
  readonly key: string;
}

export interface WorldOptions {
  /** Number of Ingresses (each with one Service and one EndpointSlice). */
  readonly ingresses: number;
  /** Every `tlsEvery`-th Ingress gets a TLS Secret (needs `tls`). */
  readonly tlsEvery?: number;
  readonly tls?: TlsPair;
  /** Namespaces the objects are spread over (default 50). */
  readonly namespaces?: number;
  /** Paths per Ingress rule: 2 (default: `/api` and `/static`) or 1 (`/api` only). */
  readonly paths?: 1 | 2;
}

const CONTROLLER = 'haproxy-haptic.org/ingress-controller';
const CREATED = Date.UTC(2025, 0, 1);

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function where(i: number, namespaces: number): { namespace: string; name: string } {
  return { namespace: `ns-${i % namespaces}`, name: `app-${i}` };
}

/** The i-th Ingress: one host, two Prefix paths to its Service's port 80 (`variant` changes a path). */
export function ingressAt(i: number, opts: WorldOptions, variant = 0): object {
  const { namespace, name } = where(i, opts.namespaces ?? 50);
  const host = `${name}.example.com`;
  const backend = { service: { name, port: { number: 80 } } };
  const tls =
    opts.tls && opts.tlsEvery && i % opts.tlsEvery === 0
      ? [{ hosts: [host], secretName: `${name}-tls` }]
      : undefined;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace,
      name,
      creationTimestamp: new Date(CREATED + i * 1000).toISOString(),
      resourceVersion: String(1 + variant),
    },
    spec: {
      ingressClassName: 'haptic',
      ...(tls ? { tls } : {}),
      rules: [
        {
          host,
          http: {
            paths: [
              { path: variant === 0 ? '/api' : `/api-v${variant}`, pathType: 'Prefix', backend },
              ...(opts.paths === 1 ? [] : [{ path: '/static', pathType: 'Prefix', backend }]),
            ],
          },
        },
      ],
    },
  };
}

function service(i: number, namespaces: number): object {
  const { namespace, name } = where(i, namespaces);
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace, name },
    spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
  };
}

function endpointSlice(i: number, namespaces: number): object {
  const { namespace, name } = where(i, namespaces);
  const addr = (k: number): string => `10.${(i >> 8) & 255}.${i & 255}.${k + 1}`;
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace,
      name: `${name}-abcde`,
      labels: { 'kubernetes.io/service-name': name },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [0, 1, 2].map((k) => ({ addresses: [addr(k)], conditions: { ready: true } })),
  };
}

function tlsSecret(i: number, namespaces: number, tls: TlsPair): object {
  const { namespace, name } = where(i, namespaces);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { namespace, name: `${name}-tls` },
    data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
  };
}

/**
 * A generated cluster for the Ingress library: `ingresses` Ingresses of one host and two paths,
 * each with its Service and an EndpointSlice of three ready endpoints, one IngressClass, and a TLS
 * Secret for every `tlsEvery`-th Ingress.
 */
export function ingressWorld(opts: WorldOptions): IngressWorld {
  const ns = opts.namespaces ?? 50;
  const ingresses: object[] = [];
  const services: object[] = [];
  const endpointslices: object[] = [];
  const secrets: object[] = [];
  for (let i = 0; i < opts.ingresses; i++) {
    ingresses.push(ingressAt(i, opts));
    services.push(service(i, ns));
    endpointslices.push(endpointSlice(i, ns));
    if (opts.tls && opts.tlsEvery && i % opts.tlsEvery === 0)
      secrets.push(tlsSecret(i, ns, opts.tls));
  }
  const ingressclasses = [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: CONTROLLER },
    },
  ];
  return { ingressclasses, ingresses, services, endpointslices, secrets };
}
