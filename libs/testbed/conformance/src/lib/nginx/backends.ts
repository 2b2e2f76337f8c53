import { generateCertificate, type KubeObject, type TlsMaterial } from '#testbed/kube-sim';
import { echoApp, ECHO_POD_PORT, type Stack, waitFor } from '#testbed/stack';
import { NS, TLS_SECRET } from './cases.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const tlsSecret = (name: string, m: TlsMaterial, ca?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: NS, name },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': b64(m.cert), 'tls.key': b64(m.key), ...(ca ? { 'ca.crt': b64(ca) } : {}) },
});
const fieldEnv = (name: string, fieldPath: string) => ({
  name,
  valueFrom: { fieldRef: { fieldPath } },
});

/** A one-container Deployment and its Service (`port` → the container's `targetPort`). */
function app(
  name: string,
  container: Record<string, unknown>,
  port: { name: string; port: number; targetPort: number },
  volumes: unknown[] = [],
): KubeObject[] {
  const labels = { app: name };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace: NS, name, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: { terminationGracePeriodSeconds: 1, containers: [{ name, ...container }], volumes },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: NS, name, labels },
      spec: { selector: labels, ports: [{ ...port, protocol: 'TCP' }] },
    },
  ];
}

/** ingress-nginx's e2e httpbun (node-sim runs it as the echo's httpbun profile) on port 80 of its Service. */
function httpbun(): KubeObject[] {
  return app(
    'httpbun',
    {
      image: 'registry.k8s.io/ingress-nginx/httpbun:v1.2.9',
      env: [
        { name: 'HTTPBUN_BIND', value: `0.0.0.0:${ECHO_POD_PORT}` },
        { name: 'HTTPBUN_INFO_ENABLED', value: '1' },
        { name: 'SERVICE_NAME', value: 'httpbun' },
        fieldEnv('POD_NAME', 'metadata.name'),
        fieldEnv('NAMESPACE', 'metadata.namespace'),
        fieldEnv('POD_IP', 'status.podIP'),
      ],
      ports: [{ name: 'http', containerPort: ECHO_POD_PORT }],
      readinessProbe: { httpGet: { path: '/status/200', port: ECHO_POD_PORT }, periodSeconds: 1 },
    },
    { name: 'http', port: 80, targetPort: ECHO_POD_PORT },
  );
}

/** An echo that serves HTTPS only on its Service's port 443 (backend-protocol: HTTPS). */
function echoTls(): KubeObject[] {
  const https = 8443;
  return app(
    'echo-tls',
    {
      image: 'registry.k8s.io/ingressconformance/echoserver:v1',
      env: [
        { name: 'HTTP_PORT', value: String(ECHO_POD_PORT) },
        { name: 'HTTPS_PORT', value: String(https) },
        { name: 'TLS_SERVER_CERT', value: '/etc/echo-tls/tls.crt' },
        { name: 'TLS_SERVER_PRIVKEY', value: '/etc/echo-tls/tls.key' },
        { name: 'SERVICE_NAME', value: 'echo-tls' },
        fieldEnv('POD_NAME', 'metadata.name'),
        fieldEnv('NAMESPACE', 'metadata.namespace'),
        fieldEnv('POD_IP', 'status.podIP'),
      ],
      ports: [
        { name: 'http', containerPort: ECHO_POD_PORT },
        { name: 'https', containerPort: https },
      ],
      volumeMounts: [{ name: 'cert', mountPath: '/etc/echo-tls', readOnly: true }],
      readinessProbe: { httpGet: { path: '/health', port: ECHO_POD_PORT }, periodSeconds: 1 },
    },
    { name: 'https', port: 443, targetPort: https },
    [{ name: 'cert', secret: { secretName: 'echo-tls-cert' } }],
  );
}

/** The wildcard certificate of the suite's hosts (its own CA for the client). */
export function suiteCertificate(): Promise<TlsMaterial> {
  return generateCertificate({
    commonName: '*.nginx.test',
    dnsNames: ['*.nginx.test'],
    ipAddresses: [],
  });
}

const WANT: Readonly<Record<string, number>> = { echo: 2, 'echo-b': 1, httpbun: 1, 'echo-tls': 1 };

/** The namespace, TLS Secrets and every backend of the suite, their pods ready. */
export async function deployBackends(stack: Stack, cert: TlsMaterial): Promise<void> {
  const backendCert = await generateCertificate({ commonName: 'echo-tls', dnsNames: ['echo-tls'] });
  await stack.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    tlsSecret(TLS_SECRET, cert),
    // its ca.crt (the self-signed certificate) lets backend TLS cases verify echo-tls
    tlsSecret('echo-tls-cert', backendCert, backendCert.cert),
    ...echoApp(NS, 'echo', { replicas: 2 }),
    ...echoApp(NS, 'echo-b'),
    ...httpbun(),
    ...echoTls(),
  ]);
  for (const [name, want] of Object.entries(WANT))
    await waitFor(
      `${want} ready pods of ${NS}/${name}`,
      async () => ((await stack.readyPods(NS, { app: name })).length === want ? true : undefined),
      180_000,
      250,
    );
}
