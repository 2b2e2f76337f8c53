import { describe, expect, it } from 'vitest';
import { ResourceIndex } from './resource-index.js';
import type { KubeObject, ObjectFetchPort } from './types.js';

function ing(namespace: string, name: string, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { namespace, name, resourceVersion: '1', labels: { app: name } },
    ...extra,
  };
}

function slice(namespace: string, name: string, service: string, rv = '1'): KubeObject {
  return {
    metadata: {
      namespace,
      name,
      resourceVersion: rv,
      labels: { 'kubernetes.io/service-name': service },
    },
  };
}

const names = (objs: readonly { metadata: { namespace?: string; name: string } }[]): string[] =>
  objs.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`);

describe('ResourceIndex (full store)', () => {
  it('lists in namespace/name order whatever the arrival order', async () => {
    const index = new ResourceIndex();
    index.configure({
      ingresses: { indexBy: ['metadata.namespace', 'metadata.name'], store: 'full' },
    });
    for (const [ns, n] of [
      ['b', 'x'],
      ['a', 'z'],
      ['a', 'B'],
      ['a', 'a'],
    ] as const) {
      index.upsert('ingresses', ing(ns, n));
    }
    const snap = await index.snapshot();
    expect(names(snap.list('ingresses'))).toEqual(['a/B', 'a/a', 'a/z', 'b/x']);
  });

  it('answers exact and prefix look-ups with non-unique keys', async () => {
    const index = new ResourceIndex();
    index.configure({
      slices: {
        indexBy: ['metadata.namespace', "metadata.labels['kubernetes.io/service-name']"],
        store: 'full',
      },
    });
    index.upsert('slices', slice('a', 's2', 'web'));
    index.upsert('slices', slice('a', 's1', 'web'));
    index.upsert('slices', slice('a', 's3', 'api'));
    index.upsert('slices', slice('b', 's4', 'web'));
    const snap = await index.snapshot();
    expect(names(snap.lookup('slices', ['a', 'web']))).toEqual(['a/s1', 'a/s2']);
    expect(names(snap.lookup('slices', ['a']))).toEqual(['a/s1', 'a/s2', 'a/s3']);
    expect(names(snap.lookup('slices', ['b', 'api']))).toEqual([]);
    expect(names(snap.lookup('slices', []))).toHaveLength(4);
    expect(() => snap.lookup('slices', ['a', 'b', 'c'])).toThrow(/indexed by 2/);
    expect(() => snap.list('nope')).toThrow(/not a watched resource/);
  });

  it('keeps snapshots immutable while the store changes', async () => {
    const index = new ResourceIndex();
    index.configure({ ingresses: { indexBy: ['metadata.namespace'], store: 'full' } });
    index.upsert('ingresses', ing('a', 'one'));
    const before = await index.snapshot();
    index.upsert('ingresses', ing('a', 'two'));
    index.remove('ingresses', ing('a', 'one'));
    const after = await index.snapshot();
    expect(names(before.list('ingresses'))).toEqual(['a/one']);
    expect(names(after.list('ingresses'))).toEqual(['a/two']);
    expect(after.version).toBeGreaterThan(before.version);
    expect(Object.isFrozen(before.list('ingresses')[0]!.metadata)).toBe(true);
  });

  it('replaces only the given namespace on a scoped reset', async () => {
    const index = new ResourceIndex();
    index.configure({ ingresses: { indexBy: ['metadata.namespace'], store: 'full' } });
    index.reset('ingresses', undefined, [ing('a', '1'), ing('b', '2')]);
    index.reset('ingresses', 'a', [ing('a', '3')]);
    expect(names((await index.snapshot()).list('ingresses'))).toEqual(['a/3', 'b/2']);
    index.reset('ingresses', 'b', []);
    expect(names((await index.snapshot()).list('ingresses'))).toEqual(['a/3']);
  });

  it('is synced only after every resource has listed once', () => {
    const index = new ResourceIndex();
    index.configure({
      a: { indexBy: ['metadata.name'], store: 'full' },
      b: { indexBy: ['metadata.name'], store: 'on-demand' },
    });
    expect(index.isSynced()).toBe(false);
    index.listed('a');
    expect(index.pending()).toEqual(['b']);
    index.listed('b');
    expect(index.isSynced()).toBe(true);
    const result = index.configure({
      a: { indexBy: ['metadata.name'], store: 'full' },
      c: { indexBy: ['metadata.name'], store: 'full' },
    });
    expect(result).toEqual({ added: ['c'], changed: [], removed: ['b'] });
    expect(index.isSynced()).toBe(false);
  });

  it('keeps objects of an unchanged spec across configure and drops changed ones', async () => {
    const index = new ResourceIndex();
    index.configure({ a: { indexBy: ['metadata.name'], store: 'full' } });
    index.upsert('a', ing('x', 'y'));
    index.configure({ a: { indexBy: ['metadata.name'], store: 'full' } });
    expect((await index.snapshot()).list('a')).toHaveLength(1);
    expect(
      index.configure({ a: { indexBy: ['metadata.namespace'], store: 'full' } }).changed,
    ).toEqual(['a']);
    expect((await index.snapshot()).list('a')).toHaveLength(0);
  });

  it('overlays a proposed create, update and delete without touching the snapshot', async () => {
    const index = new ResourceIndex();
    index.configure({
      ingresses: { indexBy: ['metadata.namespace', 'metadata.name'], store: 'full' },
    });
    index.upsert('ingresses', ing('a', 'keep'));
    index.upsert('ingresses', ing('a', 'gone'));
    index.upsert('ingresses', ing('a', 'old', { spec: { v: 1 } }));
    const snap = await index.snapshot();
    const overlay = snap.withOverlay([
      { resource: 'ingresses', operation: 'create', object: ing('a', 'b-new') },
      { resource: 'ingresses', operation: 'delete', object: ing('a', 'gone') },
      { resource: 'ingresses', operation: 'update', object: ing('a', 'old', { spec: { v: 2 } }) },
    ]);
    expect(names(overlay.list('ingresses'))).toEqual(['a/b-new', 'a/keep', 'a/old']);
    expect(overlay.lookup('ingresses', ['a', 'old'])[0]!['spec']).toEqual({ v: 2 });
    expect(names(snap.list('ingresses'))).toEqual(['a/gone', 'a/keep', 'a/old']);
  });

  it('notifies listeners with the changed resource', () => {
    const index = new ResourceIndex();
    index.configure({ a: { indexBy: ['metadata.name'], store: 'full' } });
    const seen: string[] = [];
    const off = index.onChange((c) => seen.push(`${c.resource}:${c.change}`));
    index.upsert('a', ing('x', 'y'));
    index.upsert('a', ing('x', 'y', { spec: { rules: [] } }));
    index.remove('a', ing('x', 'y'));
    index.upsert('unknown', ing('x', 'y'));
    off();
    index.upsert('a', ing('x', 'z'));
    expect(seen).toEqual(['a:added', 'a:modified', 'a:deleted']);
  });

  it('stores a change of quiet fields only (status haptic writes, resourceVersion) without a notification', async () => {
    const index = new ResourceIndex();
    index.configure({
      ingresses: { indexBy: ['metadata.name'], store: 'full', quietPaths: ['status'] },
      pods: { indexBy: ['metadata.name'], store: 'full' },
    });
    const seen: string[] = [];
    index.onChange((c) => seen.push(`${c.resource}:${c.change}`));
    const spec = { rules: [{ host: 'a.example' }] };
    const at = (rv: string, extra: Record<string, unknown>) => {
      const o = ing('x', 'y', { spec, ...extra });
      return { ...o, metadata: { ...o.metadata, resourceVersion: rv } };
    };
    index.upsert('ingresses', at('1', {}));
    const before = await index.snapshot();
    const lb = { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } };
    index.upsert('ingresses', at('2', { status: lb }));
    const managed = at('3', { status: lb });
    index.upsert('ingresses', {
      ...managed,
      metadata: { ...managed.metadata, managedFields: [{ manager: 'haptic' }] },
    });
    expect(seen).toEqual(['ingresses:added']);
    // stored all the same: the next snapshot holds the new status, under a new version
    const after = await index.snapshot();
    expect(after.version).toBeGreaterThan(before.version);
    expect(after.list('ingresses')[0]!.status).toEqual(lb);
    expect(after.list('ingresses')[0]!.metadata.resourceVersion).toBe('3');
    // a spec change is loud, and so is a status where the resource names no quiet path
    index.upsert('ingresses', at('4', { status: lb, spec: { rules: [] } }));
    index.upsert('pods', at('1', {}));
    index.upsert('pods', at('2', { status: { podIP: '10.0.0.1' } }));
    expect(seen).toEqual(['ingresses:added', 'ingresses:modified', 'pods:added', 'pods:modified']);
  });

  it('keeps a store whose quiet paths are unchanged across configure, and rebuilds one whose are not', () => {
    const index = new ResourceIndex();
    const spec = { indexBy: ['metadata.name'], store: 'full' as const, quietPaths: ['status'] };
    index.configure({ a: spec });
    index.upsert('a', ing('x', 'y'));
    expect(index.configure({ a: { ...spec, quietPaths: ['status'] } }).changed).toEqual([]);
    expect(index.configure({ a: { ...spec, quietPaths: [] } }).changed).toEqual(['a']);
  });
});

class FakeFetch implements ObjectFetchPort {
  readonly objects = new Map<string, KubeObject>();
  calls = 0;
  failing = false;
  async fetchObject(
    _r: string,
    ns: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    this.calls++;
    await Promise.resolve();
    if (this.failing) throw new Error('boom');
    return this.objects.get(`${ns ?? ''}/${name}`);
  }
  put(o: KubeObject): void {
    this.objects.set(`${o.metadata.namespace ?? ''}/${o.metadata.name}`, structuredClone(o));
  }
}

describe('ResourceIndex (on-demand store)', () => {
  function setup(now: { t: number }, maxEntries = 100) {
    const fetch = new FakeFetch();
    const index = new ResourceIndex({
      fetch,
      cache: { maxEntries, ttlMs: 1000 },
      now: () => now.t,
    });
    index.configure({
      secrets: { indexBy: ['metadata.namespace', 'metadata.name'], store: 'on-demand' },
    });
    return { fetch, index };
  }

  it('holds references only and fetches objects for a snapshot, in order, cached by version', async () => {
    const now = { t: 0 };
    const { fetch, index } = setup(now);
    for (const name of ['b', 'a']) {
      const o = slice('ns', name, 'x', '5');
      fetch.put(o);
      index.upsert('secrets', o);
    }
    const snap = await index.snapshot();
    expect(names(snap.list('secrets'))).toEqual(['ns/a', 'ns/b']);
    expect(fetch.calls).toBe(2);
    await index.snapshot();
    expect(fetch.calls).toBe(2);
    // A new resourceVersion on the reference invalidates the cached line.
    const updated = slice('ns', 'a', 'y', '6');
    fetch.put(updated);
    index.upsert('secrets', updated);
    const snap2 = await index.snapshot();
    expect(fetch.calls).toBe(3);
    expect(snap2.lookup('secrets', ['ns', 'a'])[0]!.metadata.labels).toEqual({
      'kubernetes.io/service-name': 'y',
    });
    // The earlier snapshot still shows what it was pinned to.
    expect(snap.lookup('secrets', ['ns', 'a'])[0]!.metadata.resourceVersion).toBe('5');
    now.t = 5000;
    await index.snapshot();
    expect(fetch.calls).toBe(5);
  });

  it('bounds the cache and leaves out objects deleted before the fetch', async () => {
    const now = { t: 0 };
    const { fetch, index } = setup(now, 2);
    for (const name of ['a', 'b', 'c']) {
      const o = slice('ns', name, 'x');
      fetch.put(o);
      index.upsert('secrets', o);
    }
    fetch.objects.delete('ns/c');
    const snap = await index.snapshot();
    expect(names(snap.list('secrets'))).toEqual(['ns/a', 'ns/b']);
    expect(index.cacheStats().size).toBeLessThanOrEqual(2);
  });

  it('fails the snapshot with a retryable error when a fetch fails', async () => {
    const { fetch, index } = setup({ t: 0 });
    index.upsert('secrets', slice('ns', 'a', 'x'));
    fetch.failing = true;
    await expect(index.snapshot()).rejects.toMatchObject({
      code: 'HAPTIC_INDEX_FETCH_FAILED',
      retryable: true,
    });
  });

  it('tells a quiet change from a loud one by digest, whatever the key order', () => {
    const index = new ResourceIndex({ fetch: new FakeFetch() });
    index.configure({
      ingresses: { indexBy: ['metadata.name'], store: 'on-demand', quietPaths: ['status'] },
    });
    const seen: string[] = [];
    index.onChange((c) => seen.push(c.change));
    index.upsert('ingresses', ing('x', 'y', { spec: { a: 1, b: 2 } }));
    const reordered: KubeObject = {
      status: { loadBalancer: {} },
      spec: { b: 2, a: 1 },
      metadata: { labels: { app: 'y' }, resourceVersion: '9', name: 'y', namespace: 'x' },
      kind: 'Ingress',
      apiVersion: 'networking.k8s.io/v1',
    };
    index.upsert('ingresses', reordered);
    expect(seen).toEqual(['added']);
    index.upsert('ingresses', ing('x', 'y', { spec: { a: 1, b: 3 } }));
    expect(seen).toEqual(['added', 'modified']);
  });
});
