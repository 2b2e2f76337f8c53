import type { V1Deployment, V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOnConflict } from '#testbed/testing';
import { Cluster, until } from './harness.js';

const NS = 'default';
const ECHO_IMAGE =
  'registry.k8s.io/gateway-api/conformance/echo-basic:v20240412-v1.0.0-394-g40c666fd';

/** The upstream conformance backend as the Gateway API suite declares it (image, env, port, probe). */
const echoDeployment: V1Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'infra-backend-v1', namespace: NS },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'infra-backend-v1' } },
    template: {
      metadata: { labels: { app: 'infra-backend-v1' } },
      spec: {
        terminationGracePeriodSeconds: 5,
        containers: [
          {
            name: 'infra-backend-v1',
            image: ECHO_IMAGE,
            env: [
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            ],
            ports: [{ name: 'http', containerPort: 3000 }],
            readinessProbe: { httpGet: { path: '/health', port: 'http' }, periodSeconds: 1 },
            // The endpoint stays terminating (and serving) for a moment, as a draining backend would.
            lifecycle: { preStop: { sleep: { seconds: 1 } } },
          },
        ],
      },
    },
  },
};

const echoService: V1Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'infra-backend-v1', namespace: NS },
  spec: {
    selector: { app: 'infra-backend-v1' },
    ports: [{ name: 'http', port: 8080, targetPort: 'http' }],
  },
};

const ready = (s: V1EndpointSlice | undefined): string[] =>
  (s?.endpoints ?? []).filter((e) => e.conditions?.ready === true).map((e) => e.addresses[0]!);

describe('node-sim runs kube-sim workloads as processes', () => {
  let cluster: Cluster;
  const pids = new Set<number>();

  const slice = async (): Promise<V1EndpointSlice | undefined> => {
    const list = await cluster.discovery.listNamespacedEndpointSlice({
      namespace: NS,
      labelSelector: 'kubernetes.io/service-name=infra-backend-v1',
    });
    return list.items[0];
  };
  const askEcho = async (ip: string): Promise<{ pod: string; namespace: string; path: string }> => {
    const res = await fetch(`http://${ip}:3000/who`);
    return (await res.json()) as { pod: string; namespace: string; path: string };
  };
  const recordPids = async (): Promise<void> => {
    for (const pod of (await cluster.core.listNamespacedPod({ namespace: NS })).items) {
      for (const c of pod.status?.containerStatuses ?? []) {
        const pid = /^node-sim:\/\/(\d+)$/.exec(c.containerID ?? '')?.[1];
        if (pid !== undefined) pids.add(Number(pid));
      }
    }
  };

  beforeAll(async () => {
    cluster = await Cluster.start();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('runs three echo pods on three addresses behind a ready EndpointSlice', async () => {
    const t0 = Date.now();
    await cluster.apps.createNamespacedDeployment({ namespace: NS, body: echoDeployment });
    await cluster.core.createNamespacedService({ namespace: NS, body: echoService });
    const s = await until(
      'three ready endpoints',
      async () => ready(await slice()).length === 3 && (await slice()),
    );
    console.log(`3 echo pods ready in ${Date.now() - t0} ms`);
    expect(s.metadata?.labels).toMatchObject({
      'kubernetes.io/service-name': 'infra-backend-v1',
      'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
    });
    expect(s.addressType).toBe('IPv4');
    expect(s.ports).toEqual([{ name: 'http', port: 3000, protocol: 'TCP' }]);
    const ips = ready(s);
    expect(new Set(ips).size).toBe(3);
    for (const e of s.endpoints) {
      expect(e.conditions).toEqual({ ready: true, serving: true, terminating: false });
      const answer = await askEcho(e.addresses[0]!);
      // Each address is its own process, which knows its pod from the downward API.
      expect(answer).toMatchObject({ pod: e.targetRef?.name, namespace: NS, path: '/who' });
      const pod = await cluster.core.readNamespacedPod({ name: e.targetRef!.name!, namespace: NS });
      expect(pod.status?.podIP).toBe(e.addresses[0]);
      expect(pod.status?.phase).toBe('Running');
    }
    const deploy = await until('deployment status', async () => {
      const d = await cluster.apps.readNamespacedDeployment({
        name: 'infra-backend-v1',
        namespace: NS,
      });
      return d.status?.readyReplicas === 3 && d;
    });
    expect(deploy.status).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
    await recordPids();
  });

  it('scales to ten pods on ten distinct addresses', async () => {
    const t0 = Date.now();
    // node-sim writes the Deployment's status meanwhile: re-read on 409 Conflict, as clients do.
    await updateOnConflict(
      () => cluster.apps.readNamespacedDeployment({ name: 'infra-backend-v1', namespace: NS }),
      (d) =>
        cluster.apps.replaceNamespacedDeployment({
          name: 'infra-backend-v1',
          namespace: NS,
          body: { ...d, spec: { ...d.spec!, replicas: 10 } },
        }),
    );
    const s = await until(
      'ten ready endpoints',
      async () => ready(await slice()).length === 10 && (await slice()),
    );
    console.log(`scaled 3 → 10 ready in ${Date.now() - t0} ms`);
    const ips = ready(s);
    expect(new Set(ips).size).toBe(10);
    expect(ips.every((ip) => ip.startsWith('127.') && ip !== '127.0.0.1')).toBe(true);
    const pods = new Set<string>();
    for (const ip of ips) pods.add((await askEcho(ip)).pod);
    expect(pods.size).toBe(10);
    await recordPids();
  });

  it('marks a deleted pod terminating, then drops it, and a replacement appears', async () => {
    const before = (await slice())!;
    const victim = before.endpoints[0]!;
    const watch = await cluster.watchSlices(NS);
    const t0 = Date.now();
    await cluster.core.deleteNamespacedPod({ name: victim.targetRef!.name!, namespace: NS });
    const after = await until('victim gone and ten ready again', async () => {
      const s = await slice();
      return (
        !s?.endpoints.some((e) => e.targetRef?.name === victim.targetRef?.name) &&
        ready(s).length === 10 &&
        s
      );
    });
    console.log(
      `deleted pod gone from the slice and replaced in ${Date.now() - t0} ms (preStop sleep 1 s)`,
    );
    watch.stop();
    const seen = watch.events
      .flatMap((s) => s.endpoints ?? [])
      .filter((e) => e.targetRef?.name === victim.targetRef?.name);
    // Terminating (no longer ready, still serving while it drains) before it went away.
    expect(
      seen.some(
        (e) =>
          e.conditions?.terminating === true &&
          e.conditions.ready === false &&
          e.conditions.serving === true,
      ),
    ).toBe(true);
    const newcomers = after.endpoints.filter(
      (e) => !before.endpoints.some((b) => b.targetRef?.name === e.targetRef?.name),
    );
    expect(newcomers).toHaveLength(1);
    expect((await askEcho(newcomers[0]!.addresses[0]!)).pod).toBe(newcomers[0]!.targetRef?.name);
    await expect(
      cluster.core.readNamespacedPod({ name: victim.targetRef!.name!, namespace: NS }),
    ).rejects.toMatchObject({ code: 404 });
    await recordPids();
  });

  it('restarts a pod process that dies, with its restart counted', async () => {
    const pod = (await cluster.core.listNamespacedPod({ namespace: NS })).items[0]!;
    const pid = Number(/(\d+)$/.exec(pod.status!.containerStatuses![0]!.containerID!)![1]);
    process.kill(pid, 'SIGKILL');
    const restarted = await until('restart', async () => {
      const p = await cluster.core.readNamespacedPod({ name: pod.metadata!.name!, namespace: NS });
      const c = p.status?.containerStatuses?.[0];
      return c?.restartCount === 1 && c.ready && p;
    });
    expect(restarted.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(137);
    expect((await askEcho(restarted.status!.podIP!)).pod).toBe(pod.metadata!.name);
    await recordPids();
  });

  it('leaves no process behind when it stops', async () => {
    expect(cluster.leftovers().length).toBeGreaterThanOrEqual(10);
    const t0 = Date.now();
    expect(await cluster.stopNodeSim()).toBe(0);
    console.log(`node-sim stopped ${pids.size} recorded pod processes in ${Date.now() - t0} ms`);
    expect(cluster.leftovers()).toEqual([]);
    const alive = [...pids].filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });
});
