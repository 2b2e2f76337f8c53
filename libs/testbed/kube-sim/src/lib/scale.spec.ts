/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- tests read API JSON loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;
const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);

const workload = (kind: string, name: string) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: 'default' },
  spec: {
    replicas: 2,
    selector: {
      matchLabels: { app: name },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }],
    },
    template: {
      metadata: { labels: { app: name, tier: 'a' } },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    },
  },
});

beforeAll(async () => {
  sim = await KubeSim.start();
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

describe('scale subresource', () => {
  it.each([
    ['Deployment', 'deployments'],
    ['ReplicaSet', 'replicasets'],
    ['StatefulSet', 'statefulsets'],
  ])('GET/PUT/PATCH %s/scale as autoscaling/v1 Scale', async (kind, plural) => {
    await sim.apply(workload(kind, 'w'));
    const path = `/apis/apps/v1/namespaces/default/${plural}/w/scale`;
    const got = await call('GET', path);
    expect(got.code).toBe(200);
    expect(got.body).toMatchObject({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'w', namespace: 'default' },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=w,tier in (a,b)' },
    });
    const patched = await call(
      'PATCH',
      `${path}?fieldManager=kubectl`,
      { spec: { replicas: 5 } },
      'application/merge-patch+json',
    );
    expect(patched.code).toBe(200);
    expect(patched.body.spec.replicas).toBe(5);
    const parent: any = sim.get('apps/v1', kind, 'default', 'w');
    expect(parent.spec.replicas).toBe(5);
    expect(parent.metadata.managedFields.find((e: any) => e.subresource === 'scale')).toMatchObject(
      { manager: 'kubectl', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
    );
    const put = await call('PUT', path, { ...got.body, spec: { replicas: 1 } });
    expect(put.code).toBe(409); // stale resourceVersion
    const fresh = (await call('GET', path)).body;
    expect((await call('PUT', path, { ...fresh, spec: { replicas: 1 } })).body.spec.replicas).toBe(
      1,
    );
    const neg = await call('PUT', path, {
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'w' },
      spec: { replicas: -1 },
    });
    expect(neg.code).toBe(422);
    expect(neg.body.message).toBe(
      'Scale.autoscaling "w" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });

  it('is advertised in discovery and 404 for kinds without it', async () => {
    const res = (await call('GET', '/apis/apps/v1')).body.resources;
    expect(res.find((r: any) => r.name === 'deployments/scale')).toMatchObject({
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
    });
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/x/scale')).code).toBe(404);
    expect(
      (await call('GET', '/apis/apps/v1/namespaces/default/deployments/none/scale')).code,
    ).toBe(404);
  });

  it('serves custom resources whose CRD declares subresources.scale', async () => {
    await sim.apply({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'pools', singular: 'pool', kind: 'Pool' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: {
              status: {},
              scale: {
                specReplicasPath: '.spec.size',
                statusReplicasPath: '.status.size',
                labelSelectorPath: '.status.selector',
              },
            },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  status: {
                    type: 'object',
                    properties: { size: { type: 'integer' }, selector: { type: 'string' } },
                  },
                },
              },
            },
          },
        ],
      },
    });
    await sim.apply({
      apiVersion: 'example.com/v1',
      kind: 'Pool',
      metadata: { name: 'p' },
      spec: { size: 3 },
    });
    const path = '/apis/example.com/v1/namespaces/default/pools/p/scale';
    expect((await call('GET', path)).body.spec.replicas).toBe(3);
    await call('PATCH', path, { spec: { replicas: 4 } }, 'application/merge-patch+json');
    expect((sim.get('example.com/v1', 'Pool', 'default', 'p') as any).spec.size).toBe(4);
    const res = (await call('GET', '/apis/example.com/v1')).body.resources;
    expect(res.map((r: any) => r.name)).toEqual(['pools', 'pools/status', 'pools/scale']);
  });
});
