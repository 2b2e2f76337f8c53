import {
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';

// Correctness at scale; the timings are printed for the report, never asserted.
let sim: KubeSim;
let kc: KubeConfig;

async function waitFor(pred: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

beforeAll(async () => {
  sim = await KubeSim.start({ historyLimit: 20_000 });
  kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
});
afterAll(async () => sim.stop());

describe('kube-sim at scale through client-node', () => {
  it('lists 10,000 objects into an informer and delivers 1,000 updates to it', async () => {
    const objects: KubeObject[] = Array.from({ length: 10_000 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: 'default', labels: { app: 'scale' } },
      data: { i: String(i), payload: 'x'.repeat(200) },
    }));
    await sim.apply(objects);
    const core = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    let updates = 0;
    informer.on('update', (o: V1ConfigMap) => {
      if (o.data?.round === '1') updates++;
    });
    const t0 = performance.now();
    await informer.start();
    await waitFor(() => informer.list('default').length === 10_000, 60_000, 'initial list');
    const listMs = performance.now() - t0;

    const patch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const t1 = performance.now();
    for (let batch = 0; batch < 1000; batch += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          core.patchNamespacedConfigMap(
            { namespace: 'default', name: `cm-${batch + j}`, body: { data: { round: '1' } } },
            patch,
          ),
        ),
      );
    }
    await waitFor(() => updates === 1000, 60_000, '1,000 updates');
    const updateMs = performance.now() - t1;
    // The same 1,000 updates written in process: only the watch path to the informer is timed.
    updates = 0;
    const changed = objects
      .slice(0, 1000)
      .map((o) => ({ ...o, data: { ...(o.data as object), round: '1', again: 'yes' } }));
    const t2 = performance.now();
    await sim.apply(changed);
    await waitFor(() => updates === 1000, 60_000, '1,000 in-process updates');
    const watchMs = performance.now() - t2;
    // One update at a time: from sending the patch to the informer's update event.
    const single: number[] = [];
    for (let i = 0; i < 20; i++) {
      const seen = new Promise<void>((resolve) => {
        const on = (o: V1ConfigMap) => {
          if (o.data?.single === String(i)) {
            informer.off('update', on);
            resolve();
          }
        };
        informer.on('update', on);
      });
      const ts = performance.now();
      await core.patchNamespacedConfigMap(
        { namespace: 'default', name: 'cm-5000', body: { data: { single: String(i) } } },
        patch,
      );
      await seen;
      single.push(performance.now() - ts);
    }
    const median = [...single].sort((a, b) => a - b)[10]!;
    await informer.stop();

    expect(informer.list('default').length).toBe(10_000);
    expect(informer.get('cm-999', 'default')?.data?.round).toBe('1');
    console.log(
      `kube-sim scale: initial list of 10,000 objects into a client-node informer: ${listMs.toFixed(0)} ms; 1,000 updates (merge patches, 50 in flight) all seen by the informer: ${updateMs.toFixed(0)} ms; 1,000 updates written in process all seen by the informer: ${watchMs.toFixed(0)} ms; one update to the informer (median of 20): ${median.toFixed(1)} ms; heap used ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB`,
    );
  });
});
