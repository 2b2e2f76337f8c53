import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, until } from './harness.js';

const NS = 'default';
const USER = 'admin';
const PASSWORD = 'node-sim-secret';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;

const credential = (key: string) => ({ secretKeyRef: { name: 'haproxy-credentials', key } });
const configMount = [{ name: 'haproxy-config', mountPath: '/etc/haproxy' }];

/** An HAProxy pod as the chart describes it: HAProxy plus the Dataplane API sidecar over a shared emptyDir. */
const haproxyDeployment: V1Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'haptic-haproxy', namespace: NS },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'haptic-haproxy' } },
    template: {
      metadata: { labels: { app: 'haptic-haproxy' } },
      spec: {
        terminationGracePeriodSeconds: 10,
        volumes: [{ name: 'haproxy-config', emptyDir: {} }],
        containers: [
          {
            name: 'haproxy',
            image: 'haproxytech/haproxy-debian:3.0',
            ports: [{ name: 'http', containerPort: 8080 }],
            volumeMounts: configMount,
          },
          {
            name: 'dataplane',
            image: 'haproxytech/haproxy-debian:3.0',
            command: ['dataplaneapi'],
            ports: [{ name: 'dataplane', containerPort: 5555 }],
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

/** A configuration whose only frontend answers with the pod's name, bound to the pod's own address. */
function configFor(pod: string): string {
  return [
    'global',
    '  log stderr format raw local0 notice',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 30s',
    '  timeout server 30s',
    'frontend who',
    '  bind "${POD_IP}:8080"',
    `  http-request return status 200 content-type text/plain string "${pod}"`,
    '',
  ].join('\n');
}

const isReady = (p: V1Pod): boolean =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

describe('node-sim runs HAProxy pods with the agent', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await Cluster.start();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('runs two agent pods with HAProxy side by side, each on its own address', async () => {
    await cluster.core.createNamespacedSecret({
      namespace: NS,
      body: {
        metadata: { name: 'haproxy-credentials' },
        data: { dataplane_username: b64(USER), dataplane_password: b64(PASSWORD) },
      },
    });
    const t0 = Date.now();
    await cluster.apps.createNamespacedDeployment({ namespace: NS, body: haproxyDeployment });
    const pods = await until('two ready HAProxy pods', async () => {
      const list = (
        await cluster.core.listNamespacedPod({ namespace: NS, labelSelector: 'app=haptic-haproxy' })
      ).items;
      return list.length === 2 && list.every(isReady) && list;
    });
    console.log(`2 agent pods ready in ${Date.now() - t0} ms`);
    const ips = pods.map((p) => p.status!.podIP!);
    expect(new Set(ips).size).toBe(2);
    for (const pod of pods) {
      const base = `http://${pod.status!.podIP}:5555/v3`;
      // Wrong credentials are refused: the agent took them from the Secret through the environment.
      expect(
        (await fetch(`${base}/info`, { headers: { authorization: 'Basic eDp5' } })).status,
      ).toBe(401);
      const info = await fetch(`${base}/info`, { headers: { authorization: auth } });
      expect(info.status).toBe(200);
      const version = await (
        await fetch(`${base}/services/haproxy/configuration/version`, {
          headers: { authorization: auth },
        })
      ).text();
      const push = await fetch(
        `${base}/services/haproxy/configuration/raw?version=${version.trim()}`,
        {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'text/plain' },
          body: configFor(pod.metadata!.name!),
        },
      );
      expect(push.status).toBeLessThan(300);
    }
    // Each HAProxy serves its own configuration on its own pod address.
    for (const pod of pods) {
      const body = await until(`HAProxy of ${pod.metadata!.name}`, async () => {
        const res = await fetch(`http://${pod.status!.podIP}:8080/`);
        return res.status === 200 && (await res.text());
      });
      expect(body).toBe(pod.metadata!.name);
    }
    // The HAProxy container is played by the agent: its status follows the sidecar.
    for (const pod of pods) {
      const statuses = pod.status!.containerStatuses!;
      expect(statuses.map((c) => c.name).sort()).toEqual(['dataplane', 'haproxy']);
      expect(statuses.every((c) => c.ready && c.state?.running !== undefined)).toBe(true);
    }
  });

  it('leaves neither agents nor HAProxy processes behind when it stops', async () => {
    expect(cluster.leftovers().length).toBeGreaterThanOrEqual(4);
    expect(await cluster.stopNodeSim()).toBe(0);
    expect(cluster.leftovers()).toEqual([]);
  });
});
