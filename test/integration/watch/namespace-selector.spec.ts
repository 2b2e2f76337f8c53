import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, connect, converge } from './harness.js';

const ns = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

const ingress = (namespace: string, name: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace, name },
  spec: { rules: [{ host: `${name}.example.com` }] },
});

describe('namespaceSelector against kube-sim', () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await KubeSim.start({ port: 0, bookmarkIntervalMs: 300 });
  });
  afterAll(async () => {
    await sim.stop();
  });

  it('drops the objects of a namespace whose label stops matching and brings them back', async () => {
    await sim.apply([ns('shop', { env: 'prod' }), ns('lab', { env: 'dev' })]);
    await sim.apply([ingress('shop', 'cart'), ingress('shop', 'pay'), ingress('lab', 'try')]);
    const { index, manager } = connect(sim);
    const names = async () =>
      (await index.snapshot())
        .list('ingresses')
        .map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    const seen = async (want: string[]) =>
      converge(async () => {
        const got = (await names()).join(',');
        return got === want.join(',') ? undefined : got;
      });
    try {
      await manager.apply(
        configWith({
          ingresses: {
            apiVersion: 'networking.k8s.io/v1',
            resources: 'ingresses',
            indexBy: ['metadata.namespace', 'metadata.name'],
            namespaceSelector: 'env=prod',
          },
        }).spec,
        'default',
      );
      expect(await seen(['shop/cart', 'shop/pay'])).toBeUndefined();
      expect(index.isSynced()).toBe(true);

      await sim.apply(ns('shop', { env: 'staging' }));
      expect(await seen([])).toBeUndefined();

      // Changes made while the namespace is out of view are there when it comes back.
      await sim.apply(ingress('shop', 'new'));
      await sim.apply(ns('shop', { env: 'prod' }));
      expect(await seen(['shop/cart', 'shop/new', 'shop/pay'])).toBeUndefined();

      await sim.apply(ns('lab', { env: 'prod' }));
      expect(await seen(['lab/try', 'shop/cart', 'shop/new', 'shop/pay'])).toBeUndefined();
    } finally {
      await manager.stop();
    }
  });
});
