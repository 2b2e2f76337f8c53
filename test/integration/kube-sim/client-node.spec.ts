import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type Informer,
  type ObjectCache,
  type V1ConfigMap,
  type V1Lease,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#testbed/kube-sim';

let sim: KubeSim;
let kc: KubeConfig;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Polls until `pred` holds (bounded: fails after `ms`). */
async function waitFor(pred: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An informer that restarts itself after any error, as a controller must with client-node 1.x. */
function resilientInformer(core: CoreV1Api): {
  informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;
  errors: unknown[];
} {
  const informer = makeInformer(kc, '/api/v1/namespaces/default/configmaps', () =>
    core.listNamespacedConfigMap({ namespace: 'default' }),
  );
  const errors: unknown[] = [];
  informer.on('error', (err) => {
    errors.push(err);
    setTimeout(() => void informer.start().catch((e: unknown) => errors.push(e)), 20);
  });
  return { informer, errors };
}

/** Successful LIST requests of the watched collection so far (not watches). */
function lists(): number {
  return sim.requests.filter(
    (r) =>
      !r.watch &&
      r.method === 'GET' &&
      r.code === 200 &&
      r.path === '/api/v1/namespaces/default/configmaps',
  ).length;
}

function serverState(): Map<string, string> {
  return new Map(
    sim
      .list('v1', 'ConfigMap', 'default')
      .map((o) => [o.metadata.name!, o.metadata.resourceVersion!]),
  );
}

function cacheState(cache: ObjectCache<V1ConfigMap>): Map<string, string> {
  return new Map(
    cache.list('default').map((o) => [o.metadata!.name!, o.metadata!.resourceVersion!]),
  );
}

function sameState(cache: ObjectCache<V1ConfigMap>): boolean {
  const a = serverState();
  const b = cacheState(cache);
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

beforeAll(async () => {
  sim = await KubeSim.start({ historyLimit: 200 });
  kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
});
afterAll(async () => sim.stop());

describe('client-node against kube-sim', () => {
  it('keeps an informer cache equal to the server through every fault', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    let n = 0;
    const mutate = async (count = 3) => {
      for (let i = 0; i < count; i++, n++) {
        await core.createNamespacedConfigMap({
          namespace: 'default',
          body: { metadata: { name: `cm-${n}` }, data: { n: String(n) } },
        });
        if (n % 3 === 0)
          await core.deleteNamespacedConfigMap({ namespace: 'default', name: `cm-${n}` });
        else if (n % 3 === 1)
          await core.patchNamespacedConfigMap(
            {
              namespace: 'default',
              name: `cm-${n}`,
              body: { data: { patched: 'yes' } },
            },
            mergePatch,
          );
      }
    };
    await mutate();
    const { informer, errors } = resilientInformer(core);
    await informer.start();
    await waitFor(() => sameState(informer), 10_000, 'initial sync');

    const listsBefore = lists();
    expect(sim.faults.closeWatches()).toBe(1);
    await mutate();
    await waitFor(() => sameState(informer), 10_000, 'after closed watches');
    expect(lists()).toBe(listsBefore); // resumed from its resourceVersion, no relist

    sim.faults.expireNextWatch();
    sim.faults.closeWatches();
    await mutate();
    await waitFor(() => sameState(informer), 10_000, 'after 410 on the next watch');
    expect(lists()).toBe(listsBefore + 1); // 410 made it list again

    sim.faults.failRequests({ path: '/configmaps', code: 500, count: 2, method: 'GET' });
    sim.faults.expireNextWatch();
    sim.faults.closeWatches();
    await mutate();
    await waitFor(() => sameState(informer) && errors.length > 0, 10_000, 'after 500s on list');

    sim.faults.failRequests({
      path: '/configmaps',
      code: 429,
      retryAfterSeconds: 1,
      count: 2,
      method: 'GET',
    });
    sim.faults.closeWatches();
    await mutate();
    await waitFor(() => sameState(informer), 10_000, 'after 429s');

    sim.faults.setLatency(30);
    sim.faults.closeWatches();
    await mutate();
    await waitFor(() => sameState(informer), 10_000, 'with latency');
    sim.faults.setLatency(0);

    // While the informer's next watch is held back, history moves on and is compacted:
    // that watch starts from a compacted resourceVersion, gets 410 and the informer lists again.
    const listsBeforeCompaction = lists();
    sim.faults.setLatency(300);
    sim.faults.closeWatches();
    await sim.apply(
      Array.from({ length: 5 }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `late-${i}`, namespace: 'default' },
        data: {},
      })),
    );
    sim.faults.compact();
    await waitFor(() => sameState(informer), 10_000, 'after compaction');
    sim.faults.setLatency(0);
    expect(lists()).toBeGreaterThan(listsBeforeCompaction);

    await informer.stop();
    expect(cacheState(informer)).toEqual(serverState());
    expect(sim.requests.some((r) => r.code === 429)).toBe(true);
    expect(sim.requests.some((r) => r.code === 500)).toBe(true);
  });

  it('refuses a stale Lease update with 409 Conflict', async () => {
    const coord = kc.makeApiClient(CoordinationV1Api);
    const lease: V1Lease = {
      metadata: { name: 'leader', namespace: 'default' },
      spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
    };
    await coord.createNamespacedLease({ namespace: 'default', body: lease });
    const seenByA = await coord.readNamespacedLease({ namespace: 'default', name: 'leader' });
    const seenByB = await coord.readNamespacedLease({ namespace: 'default', name: 'leader' });
    const renewed = await coord.replaceNamespacedLease({
      namespace: 'default',
      name: 'leader',
      body: { ...seenByA, spec: { ...seenByA.spec, renewTime: new Date() } },
    });
    expect(renewed.spec?.holderIdentity).toBe('a');
    const err = await coord
      .replaceNamespacedLease({
        namespace: 'default',
        name: 'leader',
        body: { ...seenByB, spec: { ...seenByB.spec, holderIdentity: 'b' } },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(409);
    const again = await coord.readNamespacedLease({ namespace: 'default', name: 'leader' });
    const taken = await coord.replaceNamespacedLease({
      namespace: 'default',
      name: 'leader',
      body: { ...again, spec: { ...again.spec, holderIdentity: 'b', leaseTransitions: 1 } },
    });
    expect(taken.spec?.holderIdentity).toBe('b');
    const dup = await coord.createNamespacedLease({ namespace: 'default', body: lease }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((dup as ApiException<unknown>).code).toBe(409);
  });

  it('talks to a TLS kube-sim with the CA and bearer token from its kubeconfig; a wrong token is 401', async () => {
    const secure = await KubeSim.start({ tls: true });
    try {
      const tkc = new KubeConfig();
      tkc.loadFromFile(secure.kubeconfigPath);
      expect(tkc.getCurrentCluster()?.server).toMatch(/^https:/);
      const names = (await tkc.makeApiClient(CoreV1Api).listNamespace()).items.map(
        (n) => n.metadata!.name,
      );
      expect(names).toContain('default');
      const bad = new KubeConfig();
      bad.loadFromString(secure.kubeconfig.replace(secure.token!, 'wrong-token'));
      const err = await bad
        .makeApiClient(CoreV1Api)
        .listNamespace()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect((err as ApiException<unknown>).code).toBe(401);
    } finally {
      await secure.stop();
    }
  });
});
