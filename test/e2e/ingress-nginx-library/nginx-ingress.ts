// The Ingress the ingress-nginx library specs apply: class `nginx`, one rule, one Prefix path,
// annotations given without the `nginx.ingress.kubernetes.io/` prefix.

/** ingress-nginx's annotation prefix. */
export const NGINX_PREFIX = 'nginx.ingress.kubernetes.io/';

/** Where the Ingress routes and what else its spec holds. */
export interface NginxIngressRoute {
  readonly namespace: string;
  readonly host: string;
  readonly path?: string;
  readonly service?: string;
  readonly port?: number;
  /** A TLS Secret for the host (spec.tls). */
  readonly tlsSecret?: string;
  /** Spec fields set over the built ones. */
  readonly spec?: object;
}

/** An Ingress of class `nginx` with the given annotations, created at a fixed time (oldest wins). */
export function nginxIngress(name: string, annotations: object, r: NginxIngressRoute) {
  const backend = { service: { name: r.service ?? 'echo', port: { number: r.port ?? 8080 } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: r.namespace,
      creationTimestamp: '2024-01-01T00:00:00Z',
      annotations: Object.fromEntries(
        Object.entries(annotations).map(([k, v]) => [NGINX_PREFIX + k, v]),
      ),
    },
    spec: {
      ingressClassName: 'nginx',
      ...(r.tlsSecret ? { tls: [{ hosts: [r.host], secretName: r.tlsSecret }] } : {}),
      rules: [
        {
          host: r.host,
          http: { paths: [{ path: r.path ?? '/', pathType: 'Prefix', backend }] },
        },
      ],
      ...r.spec,
    },
  };
}
