import { generateCertificate, type KubeObject, type TlsMaterial } from '#testbed/kube-sim';
import { ECHO_SERVICE_PORT, echoApp } from './echo-app.js';

/** The demo's example applications: what they are, and what a request to each should reach. */
export interface Examples {
  readonly namespace: string;
  readonly hosts: readonly string[];
  /** The TLS host's certificate (self-signed: it is its own CA for `curl --cacert`). */
  readonly tls: TlsMaterial;
  readonly objects: readonly KubeObject[];
  /** Requests that must reach the named Service once everything is served. */
  readonly routes: readonly ExampleRoute[];
}

export interface ExampleRoute {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly path: string;
  readonly service: string;
  readonly what: string;
}

const NS = 'demo';
const backend = (name: string) => ({
  service: { name, port: { number: ECHO_SERVICE_PORT } },
});
const path = (p: string, pathType: string, service: string) => ({
  path: p,
  pathType,
  backend: backend(service),
});
const ingress = (className: string, name: string, spec: object): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: NS, name },
  spec: { ingressClassName: className, ...spec },
});

/** Echo Deployments and Services, and Ingresses (of `className`) for HTTP, TLS, Prefix/Exact paths and a default backend. */
export async function demoExamples(className = 'haptic'): Promise<Examples> {
  const web = 'web.demo.local';
  const secure = 'secure.demo.local';
  const tls = await generateCertificate({
    commonName: secure,
    dnsNames: [secure],
    ipAddresses: [],
  });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const objects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    ...echoApp(NS, 'web', { replicas: 2, ingress: 'web' }),
    ...echoApp(NS, 'api', { ingress: 'web' }),
    ...echoApp(NS, 'fallback', { ingress: 'fallback' }),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: NS, name: 'secure-tls' },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
    },
    ingress(className, 'web', {
      rules: [
        {
          host: web,
          http: {
            paths: [
              path('/', 'Prefix', 'web'),
              path('/api', 'Prefix', 'api'),
              path('/version', 'Exact', 'api'),
            ],
          },
        },
      ],
    }),
    ingress(className, 'secure', {
      tls: [{ hosts: [secure], secretName: 'secure-tls' }],
      rules: [{ host: secure, http: { paths: [path('/', 'Prefix', 'web')] } }],
    }),
    ingress(className, 'fallback', { defaultBackend: backend('fallback') }),
  ];
  return {
    namespace: NS,
    hosts: [web, secure],
    tls,
    objects,
    routes: [
      { scheme: 'http', host: web, path: '/', service: 'web', what: 'host rule, Prefix /' },
      { scheme: 'http', host: web, path: '/api/users', service: 'api', what: 'Prefix /api' },
      { scheme: 'http', host: web, path: '/version', service: 'api', what: 'Exact /version' },
      { scheme: 'https', host: secure, path: '/', service: 'web', what: 'TLS (SNI)' },
      {
        scheme: 'http',
        host: 'unknown.demo.local',
        path: '/',
        service: 'fallback',
        what: 'default backend',
      },
    ],
  };
}
