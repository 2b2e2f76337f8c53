import type { KubeObject } from '#testbed/kube-sim';
import { ECHO_POD_PORT, waitFor } from '#testbed/stack';
import { NS, get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

const SERVICE = 'retry-split';
const SELECTOR = { 'nginx-conformance/retry': 'split' };
const byDefault = host('retry-default');
const turnedOff = host('retry-off');
const readTimeout = host('proxy-read-timeout');
const sendTimeout = host('proxy-send-timeout');
const buffering = host('proxy-buffering');

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
  {
    // ingress-nginx answers 504 when the upstream is silent past proxy-read-timeout; HAProxy has one
    // server timeout, the larger of proxy-read-timeout and proxy-send-timeout (a deviation)
    name: 'proxy-read-timeout: an answer slower than the timeout gets 504, a quicker one 200; a longer proxy-send-timeout lengthens it (one server timeout)',
    annotations: ['proxy-read-timeout', 'proxy-send-timeout', 'proxy-connect-timeout'],
    objects: [
      ingress('proxy-send-timeout', sendTimeout, [['/']], {
        'proxy-read-timeout': '1',
        'proxy-send-timeout': '6',
      }),
      ingress('proxy-read-timeout', readTimeout, [['/']], {
        'proxy-read-timeout': '1',
        'proxy-connect-timeout': '2',
        'proxy-next-upstream': 'off',
      }),
    ],
    steps: [
      { req: get(readTimeout, '/fast'), expect: { status: 200, service: 'echo' } },
      { req: get(readTimeout, '/slow?delay=3s'), expect: { status: 504 } },
      { req: get(sendTimeout, '/slow?delay=3s'), expect: { status: 200, service: 'echo' } },
    ],
  },
  {
    // ingress-nginx's e2e proxy tests read these in nginx.conf; haptic documents them as
    // deviations (HAProxy streams, has one global buffer size, no time limit over all attempts):
    // the Ingress is served, a body larger than a buffer reaches the backend
    name: 'proxy-buffering, proxy-buffer-size, proxy-request-buffering off and proxy-next-upstream-timeout are accepted: a 256 KiB POST is served',
    annotations: [
      'proxy-buffering',
      'proxy-buffer-size',
      'proxy-request-buffering',
      'proxy-next-upstream-timeout',
    ],
    objects: [
      ingress('proxy-buffering', buffering, [['/']], {
        'proxy-buffering': 'on',
        'proxy-buffer-size': '16k',
        'proxy-request-buffering': 'off',
        'proxy-next-upstream-timeout': '5',
      }),
    ],
    steps: [
      {
        req: get(buffering, '/upload', { method: 'POST', body: 'x'.repeat(256 * 1024) }),
        expect: { status: 200, service: 'echo', path: '/upload' },
      },
    ],
  },
];
