/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- tests read API JSON loosely */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiCall } from '#testbed/testing';
import { KubeSim } from './kube-sim.js';

let sim: KubeSim;

const call = (...args: Parameters<typeof apiCall> extends [string, ...infer R] ? R : never) =>
  apiCall(sim.url, ...args);

/** Reads watch events until `n` arrived (or the stream ended), then aborts. */
async function watchEvents(path: string, n: number): Promise<any[]> {
  const ac = new AbortController();
  const res = await fetch(sim.url + path, { signal: ac.signal });
  const events: any[] = [];
  let buf = '';
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  while (events.length < n) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
    }
  }
  ac.abort();
  return events;
}

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
  sim = await KubeSim.start({ historyLimit: 50 });
});
afterAll(async () => sim.stop());
beforeEach(async () => sim.reset());

describe('discovery', () => {
  it('serves /version, /api, /apis and resource lists', async () => {
    expect((await call('GET', '/version')).body.major).toBe('1');
    expect((await call('GET', '/api')).body.versions).toEqual(['v1']);
    const groups = (await call('GET', '/apis')).body.groups.map((g: any) => g.name);
    expect(groups).toEqual(
      expect.arrayContaining([
        'apps',
        'networking.k8s.io',
        'discovery.k8s.io',
        'coordination.k8s.io',
        'apiextensions.k8s.io',
      ]),
    );
    const core = (await call('GET', '/api/v1')).body.resources.map((r: any) => r.name);
    expect(core).toEqual(
      expect.arrayContaining([
        'services',
        'pods',
        'pods/status',
        'configmaps',
        'secrets',
        'events',
        'namespaces',
      ]),
    );
    expect((await call('GET', '/apis/nope.io/v1')).code).toBe(404);
  });
});

describe('CRUD', () => {
  it('creates with uid, creationTimestamp and generateName; refuses duplicates with 409 AlreadyExists', async () => {
    const a = await call('POST', '/api/v1/namespaces/default/configmaps', cm('a'));
    expect(a.code).toBe(201);
    expect(a.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.body.metadata.creationTimestamp).toMatch(/Z$/);
    const dup = await call('POST', '/api/v1/namespaces/default/configmaps', cm('a'));
    expect(dup.code).toBe(409);
    expect(dup.body).toMatchObject({
      kind: 'Status',
      reason: 'AlreadyExists',
      message: 'configmaps "a" already exists',
    });
    const g = await call('POST', '/api/v1/namespaces/default/configmaps', {
      ...cm(''),
      metadata: { generateName: 'gen-' },
    });
    expect(g.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
  });

  it('answers 404 NotFound as a Status and 404 for a missing namespace', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/configmaps/none');
    expect(r.body).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'configmaps "none" not found',
    });
    expect((await call('POST', '/api/v1/namespaces/nope/configmaps', cm('x'))).body.message).toBe(
      'namespaces "nope" not found',
    );
  });

  it('updates with 409 Conflict on a stale resourceVersion', async () => {
    const a = (await call('POST', '/api/v1/namespaces/default/configmaps', cm('a'))).body;
    const u = await call('PUT', '/api/v1/namespaces/default/configmaps/a', {
      ...a,
      data: { k: 'v2' },
    });
    expect(u.code).toBe(200);
    expect(Number(u.body.metadata.resourceVersion)).toBeGreaterThan(
      Number(a.metadata.resourceVersion),
    );
    const stale = await call('PUT', '/api/v1/namespaces/default/configmaps/a', {
      ...a,
      data: { k: 'v3' },
    });
    expect(stale.code).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toContain('the object has been modified');
  });

  it('bumps generation on spec changes only and keeps status apart', async () => {
    const ing = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'i' },
      spec: {
        ingressClassName: 'a',
        defaultBackend: { service: { name: 's', port: { number: 80 } } },
      },
      status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } },
    };
    const base = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    const c = (await call('POST', base, ing)).body;
    expect(c.metadata.generation).toBe(1);
    expect(c.status).toBeUndefined();
    const l = await call(
      'PATCH',
      `${base}/i`,
      { metadata: { labels: { x: 'y' } } },
      'application/merge-patch+json',
    );
    expect(l.body.metadata.generation).toBe(1);
    const st = await call(
      'PATCH',
      `${base}/i/status`,
      {
        status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } },
        spec: { ingressClassName: 'ignored' },
      },
      'application/merge-patch+json',
    );
    expect(st.body.status.loadBalancer.ingress[0].ip).toBe('10.0.0.1');
    expect(st.body.spec.ingressClassName).toBe('a');
    expect(st.body.metadata.generation).toBe(1);
    const sp = await call(
      'PATCH',
      `${base}/i`,
      { spec: { ingressClassName: 'b' }, status: null },
      'application/merge-patch+json',
    );
    expect(sp.body.metadata.generation).toBe(2);
    expect(sp.body.status.loadBalancer.ingress[0].ip).toBe('10.0.0.1');
  });

  it('dryRun=All validates without storing', async () => {
    const r = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', cm('dry'));
    expect(r.code).toBe(201);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/dry')).code).toBe(404);
  });

  it('keeps an object with finalizers until they are removed', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', {
      ...cm('f'),
      metadata: { name: 'f', finalizers: ['x/y'] },
    });
    const d = await call('DELETE', '/api/v1/namespaces/default/configmaps/f');
    expect(d.body.metadata.deletionTimestamp).toBeDefined();
    await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/f',
      { metadata: { finalizers: null } },
      'application/merge-patch+json',
    );
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/f')).code).toBe(404);
  });
});

describe('list and watch', () => {
  it('lists with label selectors and limit/continue', async () => {
    for (let i = 0; i < 5; i++)
      await call(
        'POST',
        '/api/v1/namespaces/default/configmaps',
        cm(`c${i}`, { n: String(i), even: String(i % 2 === 0) }),
      );
    const sel = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?labelSelector=${encodeURIComponent('even=true,n notin (4)')}`,
    );
    expect(sel.body.items.map((o: any) => o.metadata.name)).toEqual(['c0', 'c2']);
    const p1 = await call('GET', '/api/v1/configmaps?limit=2');
    expect(p1.body.items.map((o: any) => o.metadata.name)).toEqual(['c0', 'c1']);
    expect(p1.body.metadata.remainingItemCount).toBe(3);
    const p2 = await call(
      'GET',
      `/api/v1/configmaps?limit=2&continue=${p1.body.metadata.continue}`,
    );
    expect(p2.body.items.map((o: any) => o.metadata.name)).toEqual(['c2', 'c3']);
    expect(p2.body.metadata.resourceVersion).toBe(p1.body.metadata.resourceVersion);
  });

  it('replays changes after a resourceVersion, with selector transitions', async () => {
    const rv = (await call('GET', '/api/v1/namespaces/default/configmaps')).body.metadata
      .resourceVersion;
    await call('POST', '/api/v1/namespaces/default/configmaps', cm('a', { app: 'x' }));
    await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/a',
      { metadata: { labels: { app: 'y' } } },
      'application/merge-patch+json',
    );
    await call('DELETE', '/api/v1/namespaces/default/configmaps/a');
    const all = await watchEvents(
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}`,
      3,
    );
    expect(all.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const sel = await watchEvents(
      `/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&labelSelector=app%3Dx&timeoutSeconds=1`,
      3,
    );
    expect(sel.map((e) => e.type)).toEqual(['ADDED', 'DELETED']); // leaving the selection is DELETED
  });

  it('answers a watch from a compacted resourceVersion with an ERROR 410 Expired event', async () => {
    const rv = sim.resourceVersion;
    for (let i = 0; i < 60; i++)
      await call('POST', '/api/v1/namespaces/default/configmaps', cm(`h${i}`));
    const [e] = await watchEvents(`/api/v1/configmaps?watch=true&resourceVersion=${rv}`, 1);
    expect(e).toMatchObject({
      type: 'ERROR',
      object: { kind: 'Status', code: 410, reason: 'Expired' },
    });
  });

  it('sends bookmarks and initial events when asked', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', cm('a'));
    const ev = await watchEvents(
      '/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
      2,
    );
    expect(ev[0].type).toBe('ADDED');
    expect(ev[1]).toMatchObject({
      type: 'BOOKMARK',
      object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } },
    });
  });
});
