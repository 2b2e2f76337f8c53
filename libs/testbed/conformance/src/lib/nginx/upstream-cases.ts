import type { KubeObject } from '#testbed/kube-sim';
import { ECHO_POD_PORT } from '#testbed/stack';
import { NS, get, host, ingress, type CaseTools, type NginxCase } from './cases.js';

const headless = host('service-upstream-headless');
const headers = host('custom-headers');
const missing = host('custom-headers-missing');

/** The header names the suite's release allows (runner.ts: global_allowed_response_headers). */
export const ALLOWED_RESPONSE_HEADERS = [
  'My-Custom-Header',
  'My-Custom-Header-Dollar',
  'X-Literal',
];

// ingress-nginx's e2e values, and one HAProxy would expand if it were not escaped
const HEADERS = {
  'My-Custom-Header': '42',
  'My-Custom-Header-Dollar': '$remote_addr',
  'X-Literal': `%[src] "quoted" 'single' \${HOME}`,
};

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: NS, name },
  data: HEADERS,
});

/** A headless Service over the echo pods (port 80, the suite's default for unknown Services). */
const headlessEcho: KubeObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: NS, name: 'echo-headless' },
  spec: {
    clusterIP: 'None',
    selector: { app: 'echo' },
    ports: [{ name: 'http', port: 80, targetPort: ECHO_POD_PORT, protocol: 'TCP' }],
  },
};

/** The ConfigMap created after the 503: the same Ingress serves with its headers (a watched ConfigMap). */
async function configMapArrives(t: CaseTools): Promise<string | undefined> {
  await t.apply([configMap('late-headers')]);
  return t.served({
    req: get(missing, '/'),
    expect: { status: 200, service: 'echo', headers: { 'My-Custom-Header': '42' } },
  });
}

/**
 * service-upstream and custom-headers. A cluster IP carries no traffic here (kube-sim allocates
 * them from 10.96.0.0/12, which node-sim does not proxy and a test must not reach), so only the
 * headless fallback is a case; test/e2e/ingress-nginx-library sends requests to a loopback
 * cluster IP and tells it from the endpoints.
 */
export const UPSTREAM_CASES: readonly NginxCase[] = [
  {
    name: 'service-upstream: a headless Service keeps its endpoints',
    annotations: ['service-upstream'],
    objects: [
      headlessEcho,
      ingress('service-upstream-headless', headless, [['/', 'echo-headless']], {
        'service-upstream': 'true',
      }),
    ],
    steps: [{ req: get(headless, '/'), expect: { status: 200, service: 'echo' } }],
  },
  {
    name: "custom-headers: the ConfigMap's headers on the answer, values literal",
    annotations: ['custom-headers'],
    objects: [
      configMap('custom-headers'),
      ingress('custom-headers', headers, [['/']], { 'custom-headers': `${NS}/custom-headers` }),
    ],
    steps: [{ req: get(headers, '/'), expect: { status: 200, service: 'echo', headers: HEADERS } }],
  },
  {
    name: 'custom-headers: a missing ConfigMap answers 503, until it is created',
    annotations: ['custom-headers'],
    objects: [
      ingress('custom-headers-missing', missing, [['/']], {
        'custom-headers': `${NS}/late-headers`,
      }),
    ],
    steps: [
      { req: get(missing, '/'), expect: { status: 503, headers: { 'My-Custom-Header': null } } },
    ],
    script: configMapArrives,
  },
];
