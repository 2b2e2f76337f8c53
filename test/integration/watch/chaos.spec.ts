import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import type { IndexSnapshot } from '#index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, configWith, connect, converge } from './harness.js';

const NAMESPACES = ['ns-a', 'ns-b', 'ns-c'];
const OPS = 2000;
const SEEDS = Array.from({ length: 20 }, (_, i) => 1000 + i);

/** mulberry32: a small seeded PRNG so every run can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ingPath = (ns: string, name?: string) =>
  `/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses${name ? `/${name}` : ''}`;
const cmPath = (ns: string, name?: string) =>
  `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

function ingress(ns: string, name: string, r: () => number): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace: ns, name, labels: { gen: String(Math.floor(r() * 1000)) } },
    spec: { rules: [{ host: `${name}.${ns}.example.com` }] },
  };
}

function configMap(ns: string, name: string, r: () => number): KubeObject {
  const tiers = ['a', 'b', 'c'];
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: ns, name, labels: { tier: tiers[Math.floor(r() * 3)]! } },
    data: { v: String(Math.floor(r() * 1e6)) },
  };
}

const WORKERS = 8;

/**
 * One random create, update or delete. Writes go through kube-sim's own apply (create or update,
 * in process, same watch events as over HTTP), deletes over HTTP. Each worker owns its names.
 */
async function randomOp(sim: KubeSim, r: () => number, worker: number): Promise<void> {
  const ns = NAMESPACES[Math.floor(r() * NAMESPACES.length)]!;
  const name = `o${worker}-${Math.floor(r() * 8)}`;
  const isIngress = r() < 0.6;
  if (r() < 0.25) {
    const path = isIngress ? ingPath(ns, name) : cmPath(ns, name);
    await call(sim, 'DELETE', path, undefined, [200, 202, 404]);
  } else {
    await sim.apply(isIngress ? ingress(ns, name, r) : configMap(ns, name, r));
  }
}

/** Drops watches, expires them, compacts history or fails GETs with 5xx/429, at random. */
function randomFault(sim: KubeSim, r: () => number): Promise<string> | string {
  const f = r();
  if (f < 0.15) {
    const name = NAMESPACES[Math.floor(r() * NAMESPACES.length)]!;
    const env = r() < 0.5 ? 'prod' : 'dev';
    return sim
      .apply({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { env } },
      })
      .then(() => 'namespace-label');
  }
  if (f < 0.25) {
    sim.faults.closeWatches();
    return 'drop';
  }
  if (f < 0.45) {
    sim.faults.expireNextWatch(1 + Math.floor(r() * 2));
    return '410-watch';
  }
  if (f < 0.6) {
    sim.faults.compact();
    sim.faults.closeWatches();
    return 'compact';
  }
  const codes = [500, 503, 429] as const;
  sim.faults.failRequests({
    // Collection paths only (list and watch): the writes of this test are not disturbed.
    path: r() < 0.5 ? /\/ingresses$/ : /\/configmaps$/,
    method: 'GET',
    code: codes[Math.floor(r() * 3)]!,
    retryAfterSeconds: 0,
    count: 1 + Math.floor(r() * 3),
  });
  return '5xx';
}

const visible = (o: { metadata: Record<string, unknown> }) => {
  const { managedFields: _m, ...metadata } = o.metadata;
  return metadata;
};

/** Object-by-object difference between the API server and a snapshot, or undefined. */
function difference(sim: KubeSim, snap: IndexSnapshot): string | undefined {
  const prod = new Set(
    sim
      .list('v1', 'Namespace')
      .filter((n) => n.metadata.labels?.['env'] === 'prod')
      .map((n) => n.metadata.name),
  );
  const expected = {
    ingresses: sim.list('networking.k8s.io/v1', 'Ingress'),
    tiered: sim
      .list('v1', 'ConfigMap')
      .filter((o) => ['a', 'b'].includes(o.metadata.labels?.['tier'] ?? '')),
    prod: sim
      .list('networking.k8s.io/v1', 'Ingress')
      .filter((o) => prod.has(o.metadata.namespace ?? '')),
  };
  for (const [resource, objects] of Object.entries(expected)) {
    const mine = snap.list(resource);
    const want = objects
      .filter((o) => NAMESPACES.includes(o.metadata.namespace ?? ''))
      .sort((a, b) => {
        const x = `${a.metadata.namespace}/${a.metadata.name}`;
        const y = `${b.metadata.namespace}/${b.metadata.name}`;
        return x < y ? -1 : x > y ? 1 : 0;
      });
    if (mine.length !== want.length)
      return `${resource}: ${mine.length} indexed, ${want.length} in the API`;
    for (let i = 0; i < want.length; i++) {
      const a = want[i]!;
      const b = mine[i]!;
      const body = (o: Record<string, unknown>) =>
        JSON.stringify([visible(o as never), o['spec'], o['data']]);
      if (body(a) !== body(b)) {
        return `${resource} ${a.metadata.namespace}/${a.metadata.name}: API ${body(a)} index ${body(b)}`;
      }
      if (b.metadata['managedFields'] !== undefined) return 'managedFields were not stripped';
    }
  }
  return undefined;
}

describe('watch + index against kube-sim under faults', () => {
  let sim: KubeSim;
  const stats: string[] = [];

  beforeAll(async () => {
    sim = await KubeSim.start({ port: 0, bookmarkIntervalMs: 300, historyLimit: 500 });
  });
  afterAll(async () => {
    await sim.stop();
    console.log(`chaos runs:\n${stats.join('\n')}`);
  });

  it.each(SEEDS)(
    'seed %i: after 2,000 random writes with faults the index equals the API, object by object',
    async (seed) => {
      await sim.reset();
      // ns-b starts out of the prod view; label flips move namespaces in and out during the run.
      for (const ns of NAMESPACES)
        await sim.apply({
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns, labels: { env: ns === 'ns-b' ? 'dev' : 'prod' } },
        });
      const r = prng(seed);
      const { index, manager } = connect(sim);
      const started = Date.now();
      try {
        await manager.apply(
          configWith({
            ingresses: {
              apiVersion: 'networking.k8s.io/v1',
              resources: 'ingresses',
              indexBy: ['metadata.namespace', 'metadata.name'],
            },
            prod: {
              apiVersion: 'networking.k8s.io/v1',
              resources: 'ingresses',
              indexBy: ['metadata.namespace'],
              namespaceSelector: 'env=prod',
            },
            tiered: {
              apiVersion: 'v1',
              resources: 'configmaps',
              indexBy: ["metadata.labels['tier']"],
              labelSelector: 'tier in (a,b)',
              store: 'on-demand',
            },
          }).spec,
          'default',
        );
        const faults: Record<string, number> = {};
        const worker = async (w: number): Promise<void> => {
          const wr = prng(seed * 100 + w);
          for (let i = 0; i < OPS / WORKERS; i++) {
            await randomOp(sim, wr, w);
            if (w === 0 && r() < 0.15) {
              const f = await randomFault(sim, r);
              faults[f] = (faults[f] ?? 0) + 1;
            }
          }
        };
        await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
        const opsDone = Date.now();
        sim.faults.clear();
        const diff = await converge(async () => difference(sim, await index.snapshot()));
        const status = manager.status();
        stats.push(
          `seed ${seed}: ${OPS} ops in ${opsDone - started} ms, converged ${Date.now() - opsDone} ms later; ` +
            `faults ${JSON.stringify(faults)}; relists ${status.map((s) => s.relists).join('/')}, restarts ${status.map((s) => s.restarts).join('/')}; ` +
            `objects ${JSON.stringify(index.counts())}`,
        );
        expect(diff).toBeUndefined();
        expect(index.isSynced()).toBe(true);
      } finally {
        await manager.stop();
      }
    },
  );
});
