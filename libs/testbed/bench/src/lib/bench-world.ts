// What the bench cluster holds in kube-sim: the generated Ingresses, Services, EndpointSlices and
// Secrets (at the echo backends' port), the churned Service, the HAProxy pod registered by hand
// (no node-sim: the agent runs beside), and the HAProxyTemplateConfig as the chart makes it (the
// Ingress library with the chart's timings, agent-mode storage paths).
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { freePort } from '#testbed/testing';
import type { ChartSettings } from './chart.js';
import { ingressWorld, type TlsPair, type WorldOptions } from './manifests.js';

const run = promisify(execFile);
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Namespaces the generated objects are spread over. */
export const NAMESPACES = 20;

/** The Service whose endpoints the latency and churn scenarios change (addresses are not dialled). */
export const CHURN = { namespace: 'ns-0', name: 'churn' } as const;

/** An EndpointSlice of Service `name` in `namespace` with these addresses at `port`. */
export function benchSlice(
  port: number,
  namespace: string,
  name: string,
  addresses: readonly string[],
): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace,
      name: `${name}-bench`,
      labels: { 'kubernetes.io/service-name': name },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port, protocol: 'TCP' }],
    endpoints: addresses.map((a) => ({ addresses: [a], conditions: { ready: true } })),
  };
}

/** A Service without a selector (its EndpointSlices are written by the bench) to `port`. */
export function benchService(port: number, namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace, name },
    spec: { ports: [{ name: 'http', port: 80, targetPort: port, protocol: 'TCP' }] },
  };
}

/** An Ingress of one host and one Prefix path `/api` to `service`'s port 80. */
export function benchIngress(
  namespace: string,
  name: string,
  host: string,
  service: string,
): KubeObject {
  const backend = { service: { name: service, port: { number: 80 } } };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace, name },
    spec: {
      ingressClassName: 'haptic',
      rules: [{ host, http: { paths: [{ path: '/api', pathType: 'Prefix', backend }] } }],
    },
  };
}

/** A TLS Secret. */
export function benchTlsSecret(namespace: string, name: string, pair: TlsPair): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { namespace, name },
    data: { 'tls.crt': b64(pair.cert), 'tls.key': b64(pair.key) },
  };
}

/** Endpoint set `i` of the churned Service: 1..20 unreachable addresses (past the server slots), shifting. */
export function churnAddresses(i: number, max = 20): string[] {
  const n = 1 + (i % max);
  return Array.from(
    { length: n },
    (_, k) => `10.250.${Math.floor(i / 200) % 256}.${((i + k) % 200) + 1}`,
  );
}

/** A fingerprint of a PEM certificate (as `fingerprint` gives it). */
export function pemFingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

/** Where the bench world goes and what it points at. */
export interface WorldTarget {
  readonly sim: KubeSim;
  readonly root: string;
  readonly chart: ChartSettings;
  readonly world: WorldOptions;
  readonly echoPort: number;
  readonly echoAddresses: readonly string[];
  readonly haproxyIp: string;
  readonly ports: { readonly http: number; readonly https: number; readonly agent: number };
}

/** Writes the generated world, the HAProxy pod and the HAProxyTemplateConfig into kube-sim. */
export async function installWorld(t: WorldTarget, tls: TlsPair): Promise<void> {
  const { sim, echoPort } = t;
  const w = ingressWorld(t.world);
  const namespaces = ['haptic', ...Array.from({ length: NAMESPACES }, (_, i) => `ns-${i}`)];
  await sim.apply(
    namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  );
  const slices = (w.endpointslices as KubeObject[]).map((s) =>
    benchSlice(
      echoPort,
      s.metadata.namespace!,
      s.metadata.name!.replace(/-abcde$/, ''),
      t.echoAddresses,
    ),
  );
  const services = (w.services as KubeObject[]).map((s) =>
    benchService(echoPort, s.metadata.namespace!, s.metadata.name!),
  );
  await sim.apply([
    ...(w.ingressclasses as KubeObject[]),
    ...services,
    ...slices,
    ...(w.secrets as KubeObject[]),
  ]);
  await sim.apply(w.ingresses as KubeObject[]);
  // the Service whose endpoints are changed (an Ingress makes its backend exist)
  await sim.apply([
    benchService(echoPort, CHURN.namespace, CHURN.name),
    benchSlice(echoPort, CHURN.namespace, CHURN.name, churnAddresses(0)),
    benchIngress(CHURN.namespace, CHURN.name, 'churn.example.com', CHURN.name),
  ]);
  await sim.apply([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'haptic', name: 'dp-creds' },
      data: { dataplane_username: b64('admin'), dataplane_password: b64('bench-pw') },
    },
    benchTlsSecret('haptic', 'default-tls', tls),
  ]);
  await registerHaproxyPod(t);
  await sim.apply(await templateConfig(t));
}

/** The HAProxyTemplateConfig as the chart makes it for this cluster. */
async function templateConfig(t: WorldTarget): Promise<KubeObject> {
  const script = join(t.root, 'scripts/assemble-library.mjs');
  const { stdout } = await run(process.execPath, [script, '--without-tests'], {
    cwd: t.root,
    maxBuffer: 16 * 1024 * 1024,
  });
  const library = parse(stdout) as { spec: Record<string, Record<string, unknown>> };
  const spec = structuredClone(library.spec);
  const settings = spec['templatingSettings']!;
  settings['extraContext'] = {
    ...(settings['extraContext'] as object),
    http_port: t.ports.http,
    https_port: t.ports.https,
    stats_port: await freePort(t.haproxyIp),
    default_certificate: 'haptic/default-tls',
  };
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: 'haptic', name: 'haptic' },
    spec: {
      ...spec,
      credentialsSecretRef: { name: 'dp-creds' },
      podSelector: { matchLabels: { app: 'haproxy' } },
      controller: { reconcile: t.chart.reconcile },
      dataplane: {
        ...t.chart.dataplane,
        port: t.ports.agent,
        mapsDir: 'maps',
        sslCertsDir: 'ssl',
        generalStorageDir: 'general',
      },
    },
  };
}

/** The HAProxy pod, Running and ready at the agent's address (no node-sim runs it). */
async function registerHaproxyPod(t: WorldTarget): Promise<void> {
  const { sim } = t;
  await sim.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'haptic', name: 'haproxy-0', labels: { app: 'haproxy' } },
    spec: {
      containers: [
        {
          name: 'dataplane',
          image: 'haptic',
          ports: [{ name: 'dataplane', containerPort: t.ports.agent }],
        },
      ],
    },
  });
  const path = `/api/v1/namespaces/haptic/pods/haproxy-0`;
  const current = (await (await fetch(sim.url + path)).json()) as KubeObject;
  const status = {
    phase: 'Running',
    podIP: t.haproxyIp,
    containerStatuses: [{ name: 'dataplane', ready: true }],
  };
  const res = await fetch(`${sim.url}${path}/status`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...current, status }),
  });
  if (!res.ok) throw new Error(`HAProxy pod status: ${res.status} ${await res.text()}`);
}
