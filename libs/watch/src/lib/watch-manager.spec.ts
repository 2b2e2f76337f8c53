import { parseTemplateConfig, type TemplateConfig } from '#core';
import { describe, expect, it } from 'vitest';
import { FakeKubeApi } from '#testbed/testing';
import type { KubeObject, ResourceSink } from './ports.js';
import type { ReflectorTiming } from './reflector.js';
import { WatchManager } from './watch-manager.js';
import { KubeApiError } from '../watch.errors.js';
import type { HaproxyPod } from '#events';
import type { CredentialsState } from './credentials.js';

const FAST: ReflectorTiming = {
  watchTimeoutSeconds: 5,
  idleTimeoutMs: 2000,
  backoffInitialMs: 1,
  backoffMaxMs: 5,
  unlistableRetryMs: 20,
};
const ING = { apiVersion: 'networking.k8s.io/v1', plural: 'ingresses' };
const NS = { apiVersion: 'v1', plural: 'namespaces' };

/** A sink recording the current objects per resource. */
class MapSink implements ResourceSink {
  readonly data = new Map<string, Map<string, KubeObject>>();
  readonly listedNames = new Set<string>();
  private of(r: string): Map<string, KubeObject> {
    let m = this.data.get(r);
    if (!m) this.data.set(r, (m = new Map<string, KubeObject>()));
    return m;
  }
  configure(): void {}
  reset(r: string, scope: string | undefined, objects: readonly KubeObject[]): void {
    const m = this.of(r);
    for (const [k, o] of m) if (scope === undefined || o.metadata.namespace === scope) m.delete(k);
    for (const o of objects) m.set(`${o.metadata.namespace}/${o.metadata.name}`, o);
  }
  upsert(r: string, o: KubeObject): void {
    this.of(r).set(`${o.metadata.namespace}/${o.metadata.name}`, o);
  }
  remove(r: string, o: KubeObject): void {
    this.of(r).delete(`${o.metadata.namespace}/${o.metadata.name}`);
  }
  listed(r: string): void {
    this.listedNames.add(r);
  }
  names(r: string): string[] {
    return [...this.of(r).keys()].sort();
  }
}

function config(
  extra: Record<string, unknown> = {},
  ingresses: Record<string, unknown> = {},
): TemplateConfig {
  const parsed = parseTemplateConfig({
    credentialsSecretRef: { name: 'creds' },
    podSelector: { matchLabels: { app: 'haproxy' } },
    haproxyConfig: { template: 'global' },
    watchedResources: {
      ingresses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingresses',
        indexBy: ['metadata.namespace'],
        ...ingresses,
      },
    },
    ...extra,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ingress = (
  ns: string,
  name: string,
  labels: Record<string, string> = {},
  spec: unknown = {},
): KubeObject => ({
  metadata: { namespace: ns, name, labels, managedFields: [{ manager: 'x' }] },
  spec,
});

describe('WatchManager', () => {
  it('lists, follows changes, strips ignored fields and survives drops, 410s and 5xx', async () => {
    const api = new FakeKubeApi();
    const sink = new MapSink();
    api.write(ING, 'ADDED', ingress('a', 'one'));
    const manager = new WatchManager(api, sink, {}, FAST);
    await manager.apply(config().spec, 'haptic');
    await until(() => sink.listedNames.has('ingresses'), 'first list');
    expect(sink.names('ingresses')).toEqual(['a/one']);
    expect(sink.data.get('ingresses')!.get('a/one')!.metadata['managedFields']).toBeUndefined();
    api.write(ING, 'ADDED', ingress('a', 'two'));
    api.dropWatches();
    api.write(ING, 'DELETED', ingress('a', 'one'));
    api.compact();
    api.dropWatches(new Error('connection reset'));
    api.failNextList = 503;
    api.write(ING, 'ADDED', ingress('b', 'three'));
    await until(() => sink.names('ingresses').join() === 'a/two,b/three', 'recovery');
    expect(manager.status()[0]!.relists).toBeGreaterThan(0);
    await manager.stop();
  });

  it('applies a client-side field selector and a label selector', async () => {
    const api = new FakeKubeApi();
    const sink = new MapSink();
    api.write(ING, 'ADDED', ingress('a', 'match', { team: 'x' }, { ingressClassName: 'haproxy' }));
    api.write(
      ING,
      'ADDED',
      ingress('a', 'other-class', { team: 'x' }, { ingressClassName: 'nginx' }),
    );
    api.write(
      ING,
      'ADDED',
      ingress('a', 'other-team', { team: 'y' }, { ingressClassName: 'haproxy' }),
    );
    const manager = new WatchManager(api, sink, {}, FAST);
    await manager.apply(
      config({}, { labelSelector: 'team in (x)', fieldSelector: 'spec.ingressClassName=haproxy' })
        .spec,
      'h',
    );
    await until(() => sink.listedNames.has('ingresses'), 'list');
    expect(sink.names('ingresses')).toEqual(['a/match']);
    api.write(ING, 'MODIFIED', ingress('a', 'match', { team: 'x' }, { ingressClassName: 'nginx' }));
    await until(() => sink.names('ingresses').length === 0, 'leaves on modify');
    await manager.stop();
  });

  it('moves objects in and out with their namespace labels', async () => {
    const api = new FakeKubeApi();
    const sink = new MapSink();
    api.write(NS, 'ADDED', { metadata: { name: 'a', labels: { env: 'prod' } } });
    api.write(NS, 'ADDED', { metadata: { name: 'b', labels: { env: 'dev' } } });
    api.write(ING, 'ADDED', ingress('a', 'one'));
    api.write(ING, 'ADDED', ingress('b', 'two'));
    const manager = new WatchManager(api, sink, {}, FAST);
    await manager.apply(config({}, { namespaceSelector: 'env=prod' }).spec, 'h');
    await until(() => sink.listedNames.has('ingresses'), 'list');
    expect(sink.names('ingresses')).toEqual(['a/one']);
    api.write(NS, 'MODIFIED', { metadata: { name: 'a', labels: { env: 'dev' } } });
    await until(() => sink.names('ingresses').length === 0, 'leave');
    api.write(NS, 'MODIFIED', { metadata: { name: 'b', labels: { env: 'prod' } } });
    api.write(NS, 'MODIFIED', { metadata: { name: 'a', labels: { env: 'prod' } } });
    await until(() => sink.names('ingresses').join() === 'a/one,b/two', 'return');
    await manager.stop();
  });

  it('restarts only the watches a config change concerns', async () => {
    const api = new FakeKubeApi();
    const manager = new WatchManager(api, new MapSink(), {}, FAST);
    const first = await manager.apply(config().spec, 'h');
    expect(first.restarted).toEqual(['ingresses']);
    const same = await manager.apply(
      config({ haproxyConfig: { template: 'global\n  daemon' } }).spec,
      'h',
    );
    expect(same.restarted).toEqual([]);
    const changed = await manager.apply(config({}, { labelSelector: 'a=b' }).spec, 'h');
    expect(changed.restarted).toEqual(['ingresses']);
    await manager.stop();
  });

  it('reports a type it may not list as forbidden and still lets the index sync', async () => {
    const api = new FakeKubeApi();
    api.forbidden.add('ingresses');
    const sink = new MapSink();
    const manager = new WatchManager(api, sink, {}, FAST);
    await manager.apply(config().spec, 'h');
    await until(() => sink.listedNames.has('ingresses'), 'listed');
    expect(manager.status()[0]).toMatchObject({ resource: 'ingresses', phase: 'forbidden' });
    const lists = api.lists;
    await new Promise((r) => setTimeout(r, 30));
    expect(api.lists - lists).toBeLessThan(10);
    await manager.stop();
  });

  it('publishes ready HAProxy pods, credentials and the config', async () => {
    const api = new FakeKubeApi();
    const pods: (readonly HaproxyPod[])[] = [];
    const creds: CredentialsState[] = [];
    const configs: (boolean | 'absent')[] = [];
    const manager = new WatchManager(
      api,
      new MapSink(),
      {
        pods: (p) => pods.push(p),
        credentials: (c) => creds.push(c),
        config: (r) => configs.push(r === undefined ? 'absent' : r.ok),
      },
      FAST,
    );
    const pod = (name: string, ready: boolean) => ({
      metadata: { namespace: 'edge', name, labels: { app: 'haproxy' } },
      spec: {
        containers: [{ name: 'haproxy' }, { name: 'dataplane', ports: [{ containerPort: 5555 }] }],
      },
      status: { podIP: '127.0.0.9', containerStatuses: [{ name: 'dataplane', ready }] },
    });
    api.write({ apiVersion: 'v1', plural: 'pods' }, 'ADDED', pod('p1', true));
    api.write({ apiVersion: 'v1', plural: 'pods' }, 'ADDED', pod('p2', false));
    api.write({ apiVersion: 'v1', plural: 'secrets' }, 'ADDED', {
      metadata: { namespace: 'h', name: 'creds' },
      data: {
        dataplane_username: Buffer.from('admin').toString('base64'),
        dataplane_password: Buffer.from('pw').toString('base64'),
      },
    });
    manager.watchConfig({ namespace: 'h', name: 'cfg' });
    api.write(
      { apiVersion: 'haproxy-haptic.org/v1alpha1', plural: 'haproxytemplateconfigs' },
      'ADDED',
      {
        apiVersion: 'haproxy-haptic.org/v1alpha1',
        kind: 'HAProxyTemplateConfig',
        metadata: { namespace: 'h', name: 'cfg' },
        spec: { bad: true },
      },
    );
    await manager.apply(config().spec, 'h');
    await until(() => pods.length > 0 && creds.length > 0 && configs.length > 0, 'states');
    expect(pods.at(-1)!.map((p) => `${p.name}@${p.address}:${p.dataplanePort}`)).toEqual([
      'p1@127.0.0.9:5555',
    ]);
    expect(creds.at(-1)).toMatchObject({
      ok: true,
      credentials: { username: 'admin', password: 'pw' },
    });
    expect(configs.at(-1)).toBe(false);
    api.write({ apiVersion: 'v1', plural: 'pods' }, 'MODIFIED', pod('p2', true));
    await until(() => pods.at(-1)!.length === 2, 'second pod ready');
    // A status write (same spec and generation) is not a new config; a spec change is.
    const cfg = (spec: unknown, status?: unknown) => ({
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      metadata: { namespace: 'h', name: 'cfg' },
      spec,
      ...(status ? { status } : {}),
    });
    const CFG = { apiVersion: 'haproxy-haptic.org/v1alpha1', plural: 'haproxytemplateconfigs' };
    api.write(CFG, 'MODIFIED', cfg({ bad: true }, { observedGeneration: 1 }));
    api.write(CFG, 'MODIFIED', cfg(config().spec));
    await until(() => configs.at(-1) === true, 'the corrected config');
    expect(configs).toEqual(['absent', false, true]);
    await manager.stop();
  });
});

describe('Reflector and HTTP 410', () => {
  it('re-lists when a watch request itself is answered 410 (not only an ERROR event)', async () => {
    const api = new FakeKubeApi();
    const sink = new MapSink();
    api.write(ING, 'ADDED', ingress('a', 'one'));
    const watch = api.watch.bind(api);
    let gone = 1;
    api.watch = (type, req, onEvent, signal) => {
      if (gone-- > 0) return Promise.reject(new KubeApiError(410, 'Expired', 'too old', 'x'));
      return watch(type, req, onEvent, signal);
    };
    const manager = new WatchManager(api, sink, {}, FAST);
    await manager.apply(config().spec, 'h');
    await until(() => manager.status()[0]?.relists === 1, 'relist');
    api.write(ING, 'ADDED', ingress('a', 'two'));
    await until(() => sink.names('ingresses').join() === 'a/one,a/two', 'events after the relist');
    await manager.stop();
  });
});
