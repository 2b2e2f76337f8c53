import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;

const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);

const cm = (
  name: string,
  labels: Record<string, string> = {},
  data: Record<string, string> = { k: 'v' },
) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

beforeAll(async () => {
  sim = await KubeSim.start();
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

describe('faults, limits and lifecycles', () => {
  it('injects faults through the control endpoint: 429 with Retry-After, then 500', async () => {
    await call('POST', '/kube-sim/faults/fail', {
      path: '/configmaps',
      code: 429,
      retryAfterSeconds: 2,
      count: 1,
    });
    await call('POST', '/kube-sim/faults/fail', { path: '/configmaps', code: 500, count: 1 });
    const first = await call('GET', '/api/v1/configmaps');
    expect(first.code).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(first.body).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 2 },
    });
    expect((await call('GET', '/api/v1/configmaps')).code).toBe(500);
    expect((await call('GET', '/api/v1/configmaps')).code).toBe(200);
    expect((await call('POST', '/kube-sim/faults/nope', {})).code).toBe(501);
  });

  it('refuses an object etcd could not store (over 1.5 MiB) as a real server passes that on', async () => {
    await sim.apply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'blobs.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'blobs', kind: 'Blob' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        ],
      },
    });
    const blob = (name: string, size: number) => ({
      apiVersion: 'example.com/v1',
      kind: 'Blob',
      metadata: { name },
      spec: { data: 'z'.repeat(size) },
    });
    expect(
      (
        await call(
          'POST',
          '/apis/example.com/v1/namespaces/default/blobs',
          blob('small', 1024 * 1024),
        )
      ).code,
    ).toBe(201);
    const big = await call(
      'POST',
      '/apis/example.com/v1/namespaces/default/blobs',
      blob('big', 2 * 1024 * 1024),
    );
    expect(big.code).toBe(500);
    expect(big.body.message).toBe('etcdserver: request is too large');
    const cmTooBig = await call(
      'POST',
      '/api/v1/namespaces/default/configmaps',
      cm('big', {}, { k: 'q'.repeat(1024 * 1024 + 1) }),
    );
    expect(cmTooBig.code).toBe(422);
    expect(cmTooBig.body.message).toContain('Too long: may not be more than 1048576 bytes');
  });

  it('collects a pod bound to a node gracefully, as a DELETE does: the node removes it', async () => {
    const owner = (await call('POST', '/api/v1/namespaces/default/configmaps', cm('rs'))).body;
    const pod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'rs', uid: owner.metadata.uid },
        ],
      },
      spec: {
        ...(nodeName ? { nodeName } : {}),
        terminationGracePeriodSeconds: 7,
        containers: [{ name: 'c', image: 'x' }],
      },
    });
    expect((await call('POST', '/api/v1/namespaces/default/pods', pod('bound', 'n1'))).code).toBe(
      201,
    );
    expect((await call('POST', '/api/v1/namespaces/default/pods', pod('unbound'))).code).toBe(201);
    await call('DELETE', '/api/v1/namespaces/default/configmaps/rs');
    for (
      let i = 0;
      i < 100 && (await call('GET', '/api/v1/namespaces/default/pods/unbound')).code !== 404;
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    expect((await call('GET', '/api/v1/namespaces/default/pods/unbound')).code).toBe(404);
    const bound = await call('GET', '/api/v1/namespaces/default/pods/bound');
    expect(bound.code).toBe(200);
    expect(bound.body.metadata.deletionTimestamp).toBeDefined();
    expect(bound.body.metadata.deletionGracePeriodSeconds).toBe(7);
    // The node's final delete (grace 0) removes it.
    const last = await call('DELETE', '/api/v1/namespaces/default/pods/bound', {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
    });
    expect(last.code).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/default/pods/bound')).code).toBe(404);
  });

  it('deletes a namespace with its content and collects dependents by ownerReferences', async () => {
    await call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team' },
    });
    const owner = (await call('POST', '/api/v1/namespaces/default/configmaps', cm('owner'))).body;
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      ...cm('dependent'),
      metadata: {
        name: 'dependent',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid },
        ],
      },
    });
    await call('POST', '/api/v1/namespaces/team/configmaps', cm('inside'));
    expect(
      (await call('GET', '/api/v1/namespaces/team')).body.metadata.labels[
        'kubernetes.io/metadata.name'
      ],
    ).toBe('team');
    const d = await call('DELETE', '/api/v1/namespaces/team');
    expect(d.body.status.phase).toBe('Terminating');
    await call('DELETE', '/api/v1/namespaces/default/configmaps/owner');
    for (
      let i = 0;
      i < 100 &&
      ((await call('GET', '/api/v1/namespaces/team')).code !== 404 ||
        (await call('GET', '/api/v1/namespaces/default/configmaps/dependent')).code !== 404);
      i++
    ) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await call('GET', '/api/v1/namespaces/team/configmaps/inside')).code).toBe(404);
    expect((await call('GET', '/api/v1/namespaces/team')).code).toBe(404);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/dependent')).code).toBe(404);
  });

  it('deletes a pod bound to a node gracefully (the node finishes it) and an unbound one at once', async () => {
    const pod = (name: string, nodeName?: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { containers: [{ name: 'c', image: 'x' }], ...(nodeName ? { nodeName } : {}) },
    });
    await call('POST', '/api/v1/namespaces/default/pods', pod('bound', 'node-1'));
    await call('POST', '/api/v1/namespaces/default/pods', pod('unbound'));
    const g = await call('DELETE', '/api/v1/namespaces/default/pods/bound');
    expect(g.body.metadata.deletionTimestamp).toBeDefined();
    expect(g.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(
      (await call('GET', '/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-1'))
        .body.items,
    ).toHaveLength(1);
    // The kubelet's status writes during the grace period keep it (it has no finalizers to lose).
    const st = await call('PUT', '/api/v1/namespaces/default/pods/bound/status', {
      ...g.body,
      status: { phase: 'Running' },
    });
    expect(st.code).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/default/pods/bound')).body.status.phase).toBe(
      'Running',
    );
    await call('DELETE', '/api/v1/namespaces/default/pods/bound', { gracePeriodSeconds: 0 });
    expect((await call('GET', '/api/v1/namespaces/default/pods/bound')).code).toBe(404);
    await call('DELETE', '/api/v1/namespaces/default/pods/unbound');
    expect((await call('GET', '/api/v1/namespaces/default/pods/unbound')).code).toBe(404);
  });

  it('merges a strategic patch on containers by name', async () => {
    const base = '/apis/apps/v1/namespaces/default/deployments';
    await call('POST', base, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          metadata: { labels: { a: 'b' } },
          spec: {
            containers: [
              { name: 'a', image: 'a:1' },
              { name: 'b', image: 'b:1' },
            ],
          },
        },
      },
    });
    const p = await call(
      'PATCH',
      `${base}/d`,
      { spec: { template: { spec: { containers: [{ name: 'b', image: 'b:2' }] } } } },
      'application/strategic-merge-patch+json',
    );
    expect(p.body.spec.template.spec.containers).toEqual([
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:2' },
    ]);
    expect(p.body.spec.replicas).toBe(1);
    expect(p.body.metadata.generation).toBe(2);
    const wrongType = await call(
      'PATCH',
      `${base}/d`,
      { spec: { replicas: 'two' } },
      'application/merge-patch+json',
    );
    expect(wrongType.code).toBe(400);
    expect(wrongType.body.message).toContain(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field',
    );
  });

  it('stores Secret stringData as base64 data and Quantities as strings, as a real server does', async () => {
    const sec = await call('POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { user: 'admin' },
    });
    expect(sec.body.data).toEqual({ user: Buffer.from('admin').toString('base64') });
    expect(sec.body.stringData).toBeUndefined();
    expect(sec.body.type).toBe('Opaque');
    const upd = await call(
      'PATCH',
      '/api/v1/namespaces/default/secrets/s',
      { stringData: { pass: 'pw' } },
      'application/merge-patch+json',
    );
    expect(Object.keys(upd.body.data as object).sort()).toEqual(['pass', 'user']);
    const pod = await call('POST', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'q' },
      spec: {
        containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: 1, memory: '1Gi' } } }],
      },
    });
    expect(pod.body.spec.containers[0].resources.limits).toEqual({ cpu: '1', memory: '1Gi' });
  });
});

describe('concurrent writes', () => {
  it('lets exactly one of many concurrent conditional updates win, like etcd', async () => {
    const created = (
      await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'l' },
        spec: { holderIdentity: 'none' },
      })
    ).body;
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/l', {
          ...created,
          spec: { holderIdentity: `c${i}` },
        }),
      ),
    );
    expect(attempts.filter((a) => a.code === 200)).toHaveLength(1);
    expect(attempts.filter((a) => a.code === 409)).toHaveLength(19);
    const dup = await Promise.all(
      Array.from({ length: 10 }, () =>
        call('POST', '/api/v1/namespaces/default/configmaps', cm('same')),
      ),
    );
    expect(dup.filter((d) => d.code === 201)).toHaveLength(1);
    const merges = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(
          'PATCH',
          '/api/v1/namespaces/default/configmaps/same',
          { data: { [`k${i}`]: 'v' } },
          'application/merge-patch+json',
        ),
      ),
    );
    expect(merges.every((m) => m.code === 200)).toBe(true);
    expect(
      Object.keys(
        (await call('GET', '/api/v1/namespaces/default/configmaps/same')).body.data as object,
      ),
    ).toHaveLength(21);
  });

  it('refuses to change an immutable ConfigMap', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      ...cm('frozen'),
      immutable: true,
    });
    const r = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/frozen',
      { data: { k: 'other' } },
      'application/merge-patch+json',
    );
    expect(r.code).toBe(422);
    expect(r.body.message).toBe(
      'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    expect(
      (
        await call(
          'PATCH',
          '/api/v1/namespaces/default/configmaps/frozen',
          { metadata: { labels: { ok: 'yes' } } },
          'application/merge-patch+json',
        )
      ).code,
    ).toBe(200);
  });
});
