import type { V1Deployment, V1EndpointSlice } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOnConflict } from '#testbed/testing';
import { Cluster, until } from './harness.js';

const NS = 'default';

const deployment: V1Deployment = {
  metadata: { name: 'echo', namespace: NS },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'echo' } },
    template: {
      metadata: { labels: { app: 'echo' } },
      spec: {
        terminationGracePeriodSeconds: 5,
        containers: [
          {
            name: 'echo',
            image: 'ghcr.io/haptic/haptic-echo:dev',
            env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            ports: [{ name: 'http', containerPort: 3000 }],
            readinessProbe: {
              httpGet: { path: '/health', port: 'http' },
              periodSeconds: 1,
            },
          },
        ],
      },
    },
  },
};

describe('node-sim survives API faults', () => {
  let cluster: Cluster;
  const ready = async (): Promise<string[]> => {
    const list = await cluster.discovery.listNamespacedEndpointSlice({
      namespace: NS,
      labelSelector: 'kubernetes.io/service-name=echo',
    });
    const slice: V1EndpointSlice | undefined = list.items[0];
    return (slice?.endpoints ?? []).filter((e) => e.conditions?.ready).map((e) => e.addresses[0]!);
  };

  beforeAll(async () => {
    cluster = await Cluster.start();
    await cluster.apps.createNamespacedDeployment({ namespace: NS, body: deployment });
    await cluster.core.createNamespacedService({
      namespace: NS,
      body: {
        metadata: { name: 'echo' },
        spec: { selector: { app: 'echo' }, ports: [{ port: 80, targetPort: 'http' }] },
      },
    });
    await until('two ready', async () => (await ready()).length === 2);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const scale = (replicas: number) =>
    cluster.apps.replaceNamespacedDeploymentScale({
      name: 'echo',
      namespace: NS,
      body: { metadata: { name: 'echo', namespace: NS }, spec: { replicas } },
    });

  it('restarts its informers after dropped watches, 410s and failing lists, and keeps reconciling', async () => {
    const faults = cluster.kubeSim.faults;
    // Every list and watch of the kinds node-sim reconciles fails for a while, then watches expire.
    faults.failRequests({
      path: /\/(pods|deployments|replicasets|endpointslices|services)/,
      method: 'GET',
      code: 500,
      count: 12,
    });
    faults.expireNextWatch(3);
    expect(cluster.kubeSim.closeWatches()).toBeGreaterThan(0);
    // Through the scale subresource, unconditionally (node-sim writes the Deployment's status meanwhile).
    await scale(4);
    const ips = await until('four ready after the faults', async () => {
      const r = await ready();
      return r.length === 4 && r;
    });
    expect(new Set(ips).size).toBe(4);
    expect(cluster.stderr.some((l) => /watch \w+ failed .*restarting/.test(l))).toBe(true);
    // Informers are connected again: a further change still arrives.
    await scale(1);
    await until('one ready after scaling down', async () => (await ready()).length === 1);
  });

  it('rolls out a template change: a new ReplicaSet, the old one scaled to zero once it is ready', async () => {
    // node-sim writes the Deployment's status meanwhile: re-read on 409 Conflict, as clients do.
    await updateOnConflict(
      () => cluster.apps.readNamespacedDeployment({ name: 'echo', namespace: NS }),
      (d) => {
        const template = d.spec!.template;
        const container = {
          ...template.spec!.containers[0]!,
          env: [...(template.spec!.containers[0]!.env ?? []), { name: 'VERSION', value: '2' }],
        };
        const body = {
          ...d,
          spec: {
            ...d.spec!,
            replicas: 2,
            template: { ...template, spec: { ...template.spec!, containers: [container] } },
          },
        };
        return cluster.apps.replaceNamespacedDeployment({ name: 'echo', namespace: NS, body });
      },
    );
    const sets = await until('old ReplicaSet at zero, new one ready', async () => {
      const rs = (await cluster.apps.listNamespacedReplicaSet({ namespace: NS })).items;
      const fresh = rs.find((r) =>
        r.spec?.template?.spec?.containers[0]?.env?.some((e) => e.name === 'VERSION'),
      );
      const old = rs.filter((r) => r !== fresh);
      return (
        fresh?.status?.readyReplicas === 2 &&
        old.length > 0 &&
        old.every((r) => r.spec?.replicas === 0 && (r.status?.replicas ?? 0) === 0) && {
          fresh,
          old,
        }
      );
    });
    expect(sets.fresh.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    const ips = await until('two ready endpoints of the new pods', async () => {
      const r = await ready();
      return r.length === 2 && r;
    });
    const hash = sets.fresh.metadata!.labels!['pod-template-hash']!;
    for (const ip of ips) {
      const answer = (await (await fetch(`http://${ip}:3000/`)).json()) as { pod: string };
      expect(answer.pod).toContain(hash);
    }
  });

  it('runs a bare pod after its init container completed', async () => {
    await cluster.core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'with-init', labels: { role: 'init-test' } },
        spec: {
          initContainers: [
            { name: 'prepare', image: 'ghcr.io/haptic/haptic:dev', args: ['version'] },
          ],
          containers: [
            {
              name: 'echo',
              image: 'ghcr.io/haptic/haptic-echo:dev',
              readinessProbe: { tcpSocket: { port: 3000 }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
    const pod = await until('pod with init ready', async () => {
      const p = await cluster.core.readNamespacedPod({ name: 'with-init', namespace: NS });
      return (
        p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true && p
      );
    });
    expect(pod.status?.conditions?.find((c) => c.type === 'Initialized')?.status).toBe('True');
    expect(pod.status?.initContainerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });
    const answer = (await (await fetch(`http://${pod.status!.podIP}:3000/`)).json()) as {
      path: string;
    };
    expect(answer.path).toBe('/');
  });

  it('stops cleanly afterwards', async () => {
    expect(await cluster.stopNodeSim()).toBe(0);
    expect(cluster.leftovers()).toEqual([]);
  });
});
