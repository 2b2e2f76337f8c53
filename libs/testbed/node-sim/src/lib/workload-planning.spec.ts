import type { V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  planDeployment,
  planReplicaSet,
  podFor,
  POD_TEMPLATE_HASH,
  replicaSetFor,
} from './workload-planning.js';

const deployment = (replicas: number, image = 'echo:1'): V1Deployment => ({
  metadata: { name: 'web', namespace: 'ns', uid: 'd-1', generation: 2 },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'c', image }] },
    },
  },
});

const withUid = (rs: V1ReplicaSet, uid: string, status?: V1ReplicaSet['status']): V1ReplicaSet => ({
  ...rs,
  metadata: { ...rs.metadata, uid },
  ...(status ? { status } : {}),
});

function pod(
  name: string,
  rs: V1ReplicaSet,
  opts: { ready?: boolean; ip?: string; deleting?: boolean; created?: string } = {},
): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `uid-${name}`,
      labels: rs.spec!.template!.metadata!.labels!,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: rs.metadata!.name!,
          uid: rs.metadata!.uid!,
          controller: true,
        },
      ],
      creationTimestamp: new Date(opts.created ?? '2026-01-01T00:00:00Z'),
      ...(opts.deleting ? { deletionTimestamp: new Date() } : {}),
    },
    spec: { containers: [] },
    status: {
      phase: 'Running',
      ...(opts.ip ? { podIP: opts.ip } : {}),
      conditions: [{ type: 'Ready', status: opts.ready ? 'True' : 'False' }],
    },
  };
}

describe('Deployment planning', () => {
  it('creates a ReplicaSet named by the template hash, owned by the Deployment', () => {
    const plan = planDeployment(deployment(3), []);
    const rs = plan.create!;
    const hash = rs.metadata!.labels![POD_TEMPLATE_HASH]!;
    expect(rs.metadata!.name).toBe(`web-${hash}`);
    expect(rs.spec!.replicas).toBe(3);
    expect(rs.spec!.selector.matchLabels).toEqual({ app: 'web', [POD_TEMPLATE_HASH]: hash });
    expect(rs.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'Deployment',
      uid: 'd-1',
      controller: true,
    });
    expect(plan.status).toMatchObject({
      observedGeneration: 2,
      replicas: 0,
      unavailableReplicas: 3,
    });
  });

  it('scales the current ReplicaSet and reports status from it', () => {
    const current = withUid(replicaSetFor(deployment(3), 1), 'rs-1', {
      replicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    const plan = planDeployment(deployment(10), [current]);
    expect(plan.create).toBeUndefined();
    expect(plan.scale).toEqual([{ rs: current, replicas: 10 }]);
    expect(plan.status).toMatchObject({ replicas: 3, readyReplicas: 3, updatedReplicas: 3 });
    expect(plan.status.conditions?.find((c) => c.type === 'Available')?.status).toBe('False');
  });

  it('keeps the old ReplicaSet until the new one is ready, then scales it to zero', () => {
    const old = withUid(replicaSetFor(deployment(2, 'echo:1'), 1), 'rs-old', {
      replicas: 2,
      readyReplicas: 2,
    });
    const next = deployment(2, 'echo:2');
    expect(planDeployment(next, [old]).create).toBeDefined();
    const fresh = withUid(replicaSetFor(next, 2), 'rs-new', { replicas: 2, readyReplicas: 1 });
    expect(planDeployment(next, [old, fresh]).scale).toEqual([]);
    const ready = withUid(replicaSetFor(next, 2), 'rs-new', { replicas: 2, readyReplicas: 2 });
    expect(planDeployment(next, [old, ready]).scale).toEqual([{ rs: old, replicas: 0 }]);
  });
});

describe('ReplicaSet planning', () => {
  const rs = withUid(replicaSetFor(deployment(3), 1), 'rs-1');

  it('creates the missing pods, counting pods it already asked for', () => {
    expect(planReplicaSet(rs, [], 0).create).toBe(3);
    expect(planReplicaSet(rs, [pod('a', rs)], 1).create).toBe(1);
  });

  it('does not count terminating pods or pods of another owner', () => {
    const other = withUid(rs, 'rs-2');
    const plan = planReplicaSet(
      rs,
      [pod('a', rs, { deleting: true }), pod('b', other), pod('c', rs)],
      0,
    );
    expect(plan.create).toBe(2);
    expect(plan.status.replicas).toBe(1);
  });

  it('deletes unready and newest pods first when scaling down', () => {
    const one = withUid({ ...rs, spec: { ...rs.spec!, replicas: 1 } }, 'rs-1');
    const pods = [
      pod('old-ready', one, { ready: true, ip: '127.0.10.1', created: '2026-01-01T00:00:00Z' }),
      pod('new-ready', one, { ready: true, ip: '127.0.10.2', created: '2026-01-02T00:00:00Z' }),
      pod('unready', one, { ready: false, ip: '127.0.10.3' }),
    ];
    const plan = planReplicaSet(one, pods, 0);
    expect(plan.delete.map((p) => p.metadata?.name)).toEqual(['unready', 'new-ready']);
    expect(plan.status).toMatchObject({ replicas: 3, readyReplicas: 2 });
  });

  it('makes pods from the template, owned by the ReplicaSet and bound to the node', () => {
    const p = podFor(rs, 'node-sim');
    expect(p.metadata!.name).toMatch(/^web-[a-z0-9]+-[a-z0-9]{5}$/);
    expect(p.metadata!.labels).toEqual(rs.spec!.template!.metadata!.labels);
    expect(p.spec!.nodeName).toBe('node-sim');
    expect(p.metadata!.ownerReferences![0]).toMatchObject({
      kind: 'ReplicaSet',
      uid: 'rs-1',
      controller: true,
    });
  });
});
