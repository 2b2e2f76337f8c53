import { KubeSim } from '#testbed/kube-sim';
import { describe, expect, it } from 'vitest';
import { configWith, connect, converge } from './harness.js';

describe('watch over HTTPS with a bearer token (kube-sim --tls)', () => {
  it('lists and watches with the kubeconfig CA and token, as against a real cluster', async () => {
    const sim = await KubeSim.start({ port: 0, tls: true, bookmarkIntervalMs: 300 });
    const { index, manager } = connect(sim);
    try {
      expect(sim.url.startsWith('https://')).toBe(true);
      await sim.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'first' },
      });
      await manager.apply(
        configWith({
          cms: { apiVersion: 'v1', resources: 'configmaps', indexBy: ['metadata.name'] },
        }).spec,
        'default',
      );
      await sim.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'second' },
      });
      const names = async () =>
        (await index.snapshot())
          .list('cms')
          .map((o) => o.metadata.name)
          .join();
      expect(
        await converge(async () => ((await names()) === 'first,second' ? undefined : names())),
      ).toBeUndefined();
      expect(manager.status()[0]).toMatchObject({ phase: 'watching', restarts: 0 });
    } finally {
      await manager.stop();
      await sim.stop();
    }
  });
});
