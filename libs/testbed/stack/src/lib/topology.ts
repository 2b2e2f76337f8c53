import type { KubeObject } from '#testbed/kube-sim';

/** Where and how haptic is installed: the chart's topology, written as plain manifests. */
export interface Topology {
  readonly namespace: string;
  readonly haproxyReplicas: number;
  readonly controllerReplicas: number;
  /** HAProxy listeners (on each pod's own address). */
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly statsPort: number;
  /** Dataplane API port of the agent sidecar. */
  readonly dataplanePort: number;
  /** Controller listeners (on the controller pod's address). */
  readonly healthPort: number;
  readonly metricsPort: number;
  /** The Ingress library as assembled (a HAProxyTemplateConfig), changed by {@link haproxyTemplateConfig}. */
  readonly library: KubeObject;
  /** `namespace/name` of the TLS Secret served when no SNI matches. */
  readonly defaultCertificate: string;
  /** Short timings for tests (debounce, deployment interval). */
  readonly fast: boolean;
  /** The controller's --log-level (default warn). */
  readonly controllerLogLevel?: string;
  /** Extra environment variables of the controller container. */
  readonly controllerEnv?: Readonly<Record<string, string>>;
  /** spec.controller.leaderElection of the config (durations as text); default the CRD's. */
  readonly leaderElection?: Readonly<Record<string, string | boolean>>;
}

export const LOADBALANCER_LABELS = {
  'app.kubernetes.io/name': 'haptic',
  'app.kubernetes.io/component': 'loadbalancer',
};
export const CONTROLLER_LABELS = {
  'app.kubernetes.io/name': 'haptic',
  'app.kubernetes.io/component': 'controller',
};
export const CREDENTIALS = { username: 'admin', password: 'haptic-demo' };
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const fieldEnv = (name: string, fieldPath: string) => ({
  name,
  valueFrom: { fieldRef: { fieldPath } },
});

/** The HAProxyTemplateConfig: the Ingress library with this topology's ports and storage. */
export function haproxyTemplateConfig(t: Topology): KubeObject {
  const spec = structuredClone(t.library['spec']) as Record<string, Record<string, unknown>>;
  const extra = (spec['templatingSettings']!['extraContext'] ?? {}) as Record<string, unknown>;
  spec['templatingSettings']!['extraContext'] = {
    ...extra,
    http_port: t.httpPort,
    https_port: t.httpsPort,
    stats_port: t.statsPort,
    default_certificate: t.defaultCertificate,
  };
  spec['podSelector'] = { matchLabels: LOADBALANCER_LABELS };
  spec['dataplane'] = {
    port: t.dataplanePort,
    mapsDir: 'maps',
    sslCertsDir: 'ssl',
    generalStorageDir: 'general',
    ...(t.fast ? { minDeploymentInterval: '50ms' } : {}),
  };
  spec['controller'] = {
    ...(t.fast ? { reconcile: { debounce: '20ms', maxDelay: '200ms' } } : {}),
    ...(t.leaderElection ? { leaderElection: t.leaderElection } : {}),
    // as the chart does: the HAProxy Service's address goes into Ingress status
    status: { publishService: `${t.namespace}/${HAPROXY_SERVICE}` },
  };
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: t.namespace, name: 'haptic' },
    spec,
  };
}

/** The Service in front of the HAProxy pods (NodePort, the chart's default). */
export const HAPROXY_SERVICE = 'haptic-haproxy';

function haproxyService(t: Topology): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: t.namespace, name: HAPROXY_SERVICE, labels: LOADBALANCER_LABELS },
    spec: {
      type: 'NodePort',
      selector: LOADBALANCER_LABELS,
      ports: [
        { name: 'http', port: 80, targetPort: 'http' },
        { name: 'https', port: 443, targetPort: 'https' },
      ],
    },
  };
}

const configMount = [{ name: 'haproxy-config', mountPath: '/etc/haproxy' }];
const credential = (key: string) => ({ secretKeyRef: { name: 'haptic-credentials', key } });

/** HAProxy pods: HAProxy plus the Dataplane API sidecar (the agent) over a shared folder. */
function haproxyDeployment(t: Topology): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace: t.namespace, name: 'haptic-haproxy', labels: LOADBALANCER_LABELS },
    spec: {
      replicas: t.haproxyReplicas,
      selector: { matchLabels: LOADBALANCER_LABELS },
      template: {
        metadata: { labels: LOADBALANCER_LABELS },
        spec: {
          terminationGracePeriodSeconds: 10,
          volumes: [{ name: 'haproxy-config', emptyDir: {} }],
          containers: [
            {
              name: 'haproxy',
              image: 'haproxytech/haproxy-debian:3.0',
              ports: [
                { name: 'http', containerPort: t.httpPort },
                { name: 'https', containerPort: t.httpsPort },
              ],
              volumeMounts: configMount,
            },
            {
              name: 'dataplane',
              image: 'haproxytech/haproxy-debian:3.0',
              command: ['dataplaneapi'],
              ports: [{ name: 'dataplane', containerPort: t.dataplanePort }],
              env: [
                { name: 'DATAPLANE_USERNAME', valueFrom: credential('dataplane_username') },
                { name: 'DATAPLANE_PASSWORD', valueFrom: credential('dataplane_password') },
              ],
              volumeMounts: configMount,
              readinessProbe: { tcpSocket: { port: 'dataplane' }, periodSeconds: 1 },
            },
          ],
        },
      },
    },
  };
}

/** The controller: `haptic run` with its health and metrics listeners on the pod's address. */
function controllerDeployment(t: Topology): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace: t.namespace, name: 'haptic-controller', labels: CONTROLLER_LABELS },
    spec: {
      replicas: t.controllerReplicas,
      selector: { matchLabels: CONTROLLER_LABELS },
      template: {
        metadata: { labels: CONTROLLER_LABELS },
        spec: {
          containers: [
            {
              name: 'controller',
              image: 'haptic',
              args: [
                'run',
                '--config',
                'haptic',
                '--address',
                '$(POD_IP)',
                '--health-port',
                String(t.healthPort),
                '--metrics-port',
                String(t.metricsPort),
                '--log-level',
                t.controllerLogLevel ?? 'warn',
              ],
              env: [
                fieldEnv('POD_NAME', 'metadata.name'),
                fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
                fieldEnv('POD_IP', 'status.podIP'),
                ...Object.entries(t.controllerEnv ?? {}).map(([name, value]) => ({ name, value })),
              ],
              ports: [
                { name: 'health', containerPort: t.healthPort },
                { name: 'metrics', containerPort: t.metricsPort },
              ],
              readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 1 },
            },
          ],
        },
      },
    },
  };
}

/** Everything haptic needs in the cluster, in apply order. */
export function hapticManifests(
  t: Topology,
  defaultTls: { cert: string; key: string },
): KubeObject[] {
  const [tlsNs, tlsName] = t.defaultCertificate.split('/') as [string, string];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: t.namespace } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: t.namespace, name: 'haptic-credentials' },
      data: {
        dataplane_username: b64(CREDENTIALS.username),
        dataplane_password: b64(CREDENTIALS.password),
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: tlsNs, name: tlsName },
      type: 'kubernetes.io/tls',
      data: { 'tls.crt': b64(defaultTls.cert), 'tls.key': b64(defaultTls.key) },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: {
        name: 'haptic',
        annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
      },
      spec: { controller: 'haproxy-haptic.org/ingress-controller' },
    },
    haproxyTemplateConfig(t),
    haproxyService(t),
    haproxyDeployment(t),
    controllerDeployment(t),
  ] as KubeObject[];
}
