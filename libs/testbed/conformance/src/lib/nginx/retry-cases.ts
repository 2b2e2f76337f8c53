import type { KubeObject } from '#testbed/kube-sim';
import { ECHO_POD_PORT, waitFor } from '#testbed/stack';
import { NS, get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

const SERVICE = 'retry-split';
const SELECTOR = { 'nginx-conformance/retry': 'split' };
const byDefault = host('retry-default');
const turnedOff = host('retry-off');

/** An echo pod of the split Service listening on `port` (the Service's target port or another). */
function echoPod(name: string, port: number): KubeObject {
  const labels = { app: name, ...SELECTOR };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { namespace: NS, name, labels },
    spec: {
      replicas: 1,
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
                { name: 'HTTP_PORT', value: String(port) },
                { name: 'SERVICE_NAME', value: SERVICE },
              ],
              ports: [{ name: 'http', containerPort: port }],
              readinessProbe: { httpGet: { path: '/health', port }, periodSeconds: 1 },
            },
          ],
        },
      },
    },
  };
}

/**
 * A Service of two ready pods: one listens on the target port, the other on the next port, so
 * connections to it are refused (ingress-nginx's `error` failure).
 */
function splitService(): KubeObject[] {
  return [
    echoPod('retry-good', ECHO_POD_PORT),
    echoPod('retry-refusing', ECHO_POD_PORT + 1),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: NS, name: SERVICE },
      spec: {
        selector: SELECTOR,
        ports: [{ name: 'http', port: 80, targetPort: ECHO_POD_PORT, protocol: 'TCP' }],
      },
    },
  ];
}

async function statuses(t: CaseTools, pod: CaseTools['pods'][number], h: string, n: number) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await t.call(pod, get(h))).status);
  return out;
}

/**
 * Once the refusing pod is in the rotation (`off` lets a request meet it: 503), six requests
 * with ingress-nginx's default (`error timeout`, 3 tries) are all served, and `off` fails some.
 */
async function retriesRefused(t: CaseTools): Promise<string | undefined> {
  for (const pod of t.pods) {
    try {
      await waitFor(
        `a 503 through ${pod.address} from ${turnedOff} (the refusing pod in the rotation)`,
        async () => ((await statuses(t, pod, turnedOff, 2)).includes(503) ? true : undefined),
        120_000,
        250,
      );
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
    const served = await statuses(t, pod, byDefault, 6);
    if (served.some((s) => s !== 200))
      return `${byDefault} through ${pod.address} answered ${served.join(', ')} (want 200 each: the refused connection passed on)`;
    const off = await statuses(t, pod, turnedOff, 6);
    if (!off.includes(503))
      return `${turnedOff} through ${pod.address} answered ${off.join(', ')} (want a 503 among them: no retry)`;
  }
  return undefined;
}

/** proxy-next-upstream and proxy-next-upstream-tries: a failed endpoint is passed over. */
export const RETRY_CASES: readonly NginxCase[] = [
  {
    name: 'proxy-next-upstream: a refused connection goes to the next endpoint by default, not with off',
    annotations: ['proxy-next-upstream', 'proxy-next-upstream-tries'],
    objects: [
      ...splitService(),
      ingress('retry-default', byDefault, [['/', SERVICE]], { 'proxy-next-upstream-tries': '3' }),
      ingress('retry-off', turnedOff, [['/', SERVICE]], { 'proxy-next-upstream': 'off' }),
    ],
    steps: [{ req: get(byDefault), expect: { status: 200, service: SERVICE } }],
    script: retriesRefused,
  },
];
