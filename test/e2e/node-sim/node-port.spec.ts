import { request } from 'node:http';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, until } from './harness.js';

const NS = 'default';
const ECHO_IMAGE =
  'registry.k8s.io/gateway-api/conformance/echo-basic:v20240412-v1.0.0-394-g40c666fd';

/** A bare echo pod; on delete it keeps serving for a while (preStop sleep), as a draining backend. */
const echoPod = (name: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS, labels: { app: 'echo' } },
  spec: {
    // Scheduled, so deleting it is graceful (an unscheduled pod is removed at once, as upstream).
    nodeName: 'node-sim',
    terminationGracePeriodSeconds: 60,
    containers: [
      {
        name: 'echo',
        image: ECHO_IMAGE,
        env: [
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        ],
        ports: [{ name: 'http', containerPort: 3000 }],
        readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 1 },
        lifecycle: { preStop: { sleep: { seconds: 45 } } },
      },
    ],
  },
});

const service = (name: string, spec: V1Service['spec']): V1Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: NS },
  spec: {
    selector: { app: 'echo' },
    ports: [{ name: 'http', port: 18080, targetPort: 'http' }],
    ...spec,
  },
});

/** One GET on a new connection each time (no keep-alive), so every request is a new proxied connection. */
function whoAnswers(host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path: '/who', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        try {
          resolve((JSON.parse(body) as { pod: string }).pod);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('node-sim plays the node and kube-proxy', () => {
  let cluster: Cluster;
  /** A probe for `until`: true once node-sim has logged a matching line. */
  /** Whether node-sim logged a matching line (from line `from` on: not one logged before). */
  const logged =
    (match: (line: string) => boolean, from = 0) =>
    (): Promise<boolean> =>
      Promise.resolve(cluster.stderr.slice(from).some(match));

  beforeAll(async () => {
    // A loopback service range, so cluster IPs are addresses node-sim can listen on too.
    cluster = await Cluster.start({ loopbackServices: true });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('registers a Ready Node whose InternalIP is where it serves', async () => {
    const node = await until('the node', () => cluster.core.readNode({ name: 'node-sim' }));
    expect(node.status?.addresses).toContainEqual({
      type: 'InternalIP',
      address: cluster.nodeIP,
    });
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(Number(node.status?.capacity?.cpu)).toBeGreaterThan(0);
    expect(node.status?.capacity?.pods).toBe('110');
  });

  it('sends node port connections to both ready pods, and none to a terminating one', async () => {
    await cluster.core.createNamespacedPod({ namespace: NS, body: echoPod('echo-a') });
    await cluster.core.createNamespacedPod({ namespace: NS, body: echoPod('echo-b') });
    const svc = await cluster.core.createNamespacedService({
      namespace: NS,
      body: service('echo', { type: 'NodePort' }),
    });
    const nodePort = svc.spec!.ports![0]!.nodePort!;
    expect(nodePort).toBeGreaterThanOrEqual(30000);
    expect(nodePort).toBeLessThanOrEqual(32767);
    const pods = await until('both pods ready', async () => {
      const list = (await cluster.core.listNamespacedPod({ namespace: NS })).items;
      const ready = list.filter((p) =>
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === 2 && list;
    });
    const ipOf = (name: string): string =>
      pods.find((p) => p.metadata?.name === name)!.status!.podIP!;
    const both = [ipOf('echo-a'), ipOf('echo-b')]
      .sort()
      .map((ip) => `${ip}:3000`)
      .join(',');
    const nodeAddr = `${cluster.nodeIP}:${nodePort}`;
    // node-sim logs every proxy rule change; wait for the one with both pods behind the node port.
    await until(
      'the proxy rule with both pods',
      logged((l) => l.endsWith(`default/echo:http nodePort ${nodeAddr} -> ${both}`)),
    );
    const answers = new Set<string>();
    for (let i = 0; i < 10; i++) answers.add(await whoAnswers(cluster.nodeIP, nodePort));
    expect([...answers].sort()).toEqual(['echo-a', 'echo-b']);

    // the same rule was logged already while echo-a was not yet ready: only a later line counts
    const mark = cluster.stderr.length;
    await cluster.core.deleteNamespacedPod({ name: 'echo-a', namespace: NS });
    await until(
      'the proxy rule without the terminating pod',
      logged(
        (l) => l.endsWith(`default/echo:http nodePort ${nodeAddr} -> ${ipOf('echo-b')}:3000`),
        mark,
      ),
    );
    const after: string[] = [];
    for (let i = 0; i < 10; i++) after.push(await whoAnswers(cluster.nodeIP, nodePort));
    expect(after).toEqual(Array.from({ length: 10 }, () => 'echo-b'));
    // echo-a is still there and still answering (it drains for 45 s): it was just not sent any.
    const a = await cluster.core.readNamespacedPod({ name: 'echo-a', namespace: NS });
    expect(a.metadata?.deletionTimestamp).toBeDefined();
    expect(await whoAnswers(ipOf('echo-a'), 3000)).toBe('echo-a');
  });

  it('serves the cluster IP and the LoadBalancer address, with status.loadBalancer set', async () => {
    const svc = await cluster.core.createNamespacedService({
      namespace: NS,
      body: service('echo-lb', {
        type: 'LoadBalancer',
        ports: [{ name: 'http', port: 18081, targetPort: 'http' }],
      }),
    });
    const clusterIP = svc.spec!.clusterIP!;
    expect(clusterIP.split('.').slice(0, 2)).toEqual(cluster.serviceCidr.split('.').slice(0, 2));
    expect(svc.spec!.ports![0]!.nodePort).toBeGreaterThanOrEqual(30000);
    const lb = await until('the load balancer status', async () => {
      const s = await cluster.core.readNamespacedService({ name: 'echo-lb', namespace: NS });
      return (s.status?.loadBalancer?.ingress?.length ?? 0) > 0 && s;
    });
    expect(lb.status?.loadBalancer?.ingress).toEqual([{ ip: cluster.nodeIP }]);
    await until(
      'the proxy rules of the load balancer',
      logged((l) => / default\/echo-lb:http loadBalancer .* -> 127\./.test(l)),
    );
    await until(
      'the cluster IP rule of the load balancer',
      logged((l) => / default\/echo-lb:http clusterIP .* -> 127\./.test(l)),
    );
    expect(await whoAnswers(clusterIP, 18081)).toBe('echo-b');
    expect(await whoAnswers(cluster.nodeIP, 18081)).toBe('echo-b');
  });
});
