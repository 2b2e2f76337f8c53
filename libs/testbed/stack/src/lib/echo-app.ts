import type { KubeObject } from '#testbed/kube-sim';

/** Port of the echo Service (the conformance suites' 8080) and of its pods (the upstream echoserver's 3000). */
export const ECHO_SERVICE_PORT = 8080;
export const ECHO_POD_PORT = 3000;

const fieldEnv = (name: string, fieldPath: string) => ({
  name,
  valueFrom: { fieldRef: { fieldPath } },
});

/**
 * An echo backend as the Ingress conformance suite deploys it: a Deployment of the upstream
 * echoserver image (node-sim runs `haptic echo`) and a Service `name` with port 8080 named `http`.
 */
export function echoApp(
  namespace: string,
  name: string,
  opts: { replicas?: number; ingress?: string } = {},
): KubeObject[] {
  const labels = { app: name };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace, name, labels },
      spec: {
        replicas: opts.replicas ?? 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'echo',
                image: 'registry.k8s.io/ingressconformance/echoserver:v1',
                env: [
                  { name: 'HTTP_PORT', value: String(ECHO_POD_PORT) },
                  { name: 'SERVICE_NAME', value: name },
                  { name: 'INGRESS_NAME', value: opts.ingress ?? '' },
                  fieldEnv('POD_NAME', 'metadata.name'),
                  fieldEnv('NAMESPACE', 'metadata.namespace'),
                  fieldEnv('POD_IP', 'status.podIP'),
                ],
                ports: [{ name: 'http', containerPort: ECHO_POD_PORT }],
                readinessProbe: {
                  httpGet: { path: '/health', port: ECHO_POD_PORT },
                  periodSeconds: 1,
                },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace, name, labels },
      spec: {
        selector: labels,
        ports: [{ name: 'http', port: ECHO_SERVICE_PORT, targetPort: 'http' }],
      },
    },
  ];
}
