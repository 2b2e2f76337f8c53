import { readFile, writeFile } from 'node:fs/promises';
import { KubeSim } from '#testbed/kube-sim';
import { describe, expect, it } from 'vitest';
import { configWith, connect, converge } from './harness.js';

describe('a watched type the controller may not list', () => {
  it('is a reported condition, counts as listed, and is not retried in a tight loop', async () => {
    const sim = await KubeSim.start({ port: 0, tls: true });
    // The same cluster with a token the server refuses (401), as after a revoked service account.
    const kubeconfig = (await readFile(sim.kubeconfigPath, 'utf8')).replace(sim.token!, 'revoked');
    await writeFile(sim.kubeconfigPath, kubeconfig);
    const { index, manager } = connect(sim);
    try {
      await manager.apply(
        configWith({
          cms: { apiVersion: 'v1', resources: 'configmaps', indexBy: ['metadata.name'] },
        }).spec,
        'default',
      );
      expect(
        await converge(() => (index.isSynced() ? undefined : JSON.stringify(manager.status()))),
      ).toBeUndefined();
      expect(manager.status()[0]).toMatchObject({ resource: 'cms', phase: 'unauthorized' });
      const lists = () => sim.requests.filter((r) => r.path.endsWith('/configmaps')).length;
      const before = lists();
      expect(before).toBeGreaterThan(0);
      // FAST re-checks an unlistable type every 100 ms; a tight retry loop would make hundreds.
      await new Promise((r) => setTimeout(r, 500));
      expect(lists() - before).toBeLessThanOrEqual(6);
      expect(sim.requests.at(-1)?.code).toBe(401);
    } finally {
      await manager.stop();
      await sim.stop();
    }
  });
});
