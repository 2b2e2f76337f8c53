/** What `ingressObject` varies; everything else is the usual one-rule, one-path Ingress. */
export interface IngressShape {
  readonly name: string;
  readonly host?: string;
  readonly namespace?: string;
  /** spec.ingressClassName; omitted when undefined (the default class decides). */
  readonly cls?: string;
  readonly service?: string;
  readonly port?: number;
  readonly path?: string;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly creationTimestamp?: string;
}

/**
 * A networking.k8s.io/v1 Ingress routing `host` + `path` (Prefix) to one Service port: the
 * object most tests write (defaults: namespace `apps`, host `<name>.example`, Service `web:80`).
 */
export function ingressObject(s: IngressShape) {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace: s.namespace ?? 'apps',
      name: s.name,
      ...(s.creationTimestamp ? { creationTimestamp: s.creationTimestamp } : {}),
      ...(s.annotations ? { annotations: { ...s.annotations } } : {}),
    },
    spec: {
      ...(s.cls !== undefined ? { ingressClassName: s.cls } : {}),
      rules: [
        {
          host: s.host ?? `${s.name}.example`,
          http: {
            paths: [
              {
                path: s.path ?? '/',
                pathType: 'Prefix',
                backend: { service: { name: s.service ?? 'web', port: { number: s.port ?? 80 } } },
              },
            ],
          },
        },
      ],
    },
  };
}
