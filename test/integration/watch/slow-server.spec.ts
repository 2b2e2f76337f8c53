import { KubeSim } from '#testbed/kube-sim';
import { describe, expect, it } from 'vitest';
import { configWith, connect, converge } from './harness.js';

describe('an API server that does not answer in time', () => {
  it('times the list out, backs off, and syncs once the server answers again', async () => {
    const sim = await KubeSim.start({ port: 0, bookmarkIntervalMs: 300 });
    await sim.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'x' },
    });
    sim.faults.setLatency(1000);
    const { index, manager } = connect(sim, 200);
    try {
      await manager.apply(
        configWith({
          cms: { apiVersion: 'v1', resources: 'configmaps', indexBy: ['metadata.name'] },
        }).spec,
        'default',
      );
      expect(
        await converge(() => (manager.status()[0]!.restarts > 0 ? undefined : 'waiting')),
      ).toBeUndefined();
      expect(index.isSynced()).toBe(false);
      expect(manager.status()[0]!.lastError).toMatch(/no response within 200 ms/);
      sim.faults.setLatency(0);
      expect(await converge(() => (index.isSynced() ? undefined : 'waiting'))).toBeUndefined();
      expect((await index.snapshot()).lookup('cms', ['x'])).toHaveLength(1);
    } finally {
      await manager.stop();
      await sim.stop();
    }
  });
});
