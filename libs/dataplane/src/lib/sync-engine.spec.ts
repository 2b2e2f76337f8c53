import { describe, expect, it, vi } from 'vitest';
import { DataplaneRequestError } from '../dataplane.errors.js';
import type { DataplaneClient, StorageKind } from './client.js';
import { syncPod } from './sync-engine.js';

const config = 'global\n  log stdout format raw local0\ndefaults\n  mode http\n';

interface Call {
  readonly method: string;
  readonly path: string;
  readonly json?: unknown;
  readonly query?: Record<string, string> | undefined;
}

/**
 * A Dataplane API in memory, as far as the engine uses it: storage by kind, runtime calls
 * recorded; `runtimeNames` are the names the API gave certificates it made at runtime (the real
 * API names them by their storage path); `fail` answers one runtime path with an HTTP error.
 */
function fakeApi(opts: {
  storage: Record<StorageKind, Record<string, string>>;
  runtimeNames?: Record<string, string>;
  fail?: { path: string; status: number };
  /** The configuration the pod runs (default: `config`). */
  config?: string;
  /** The API is a haptic agent (takes the render's own check of a stored copy). */
  agent?: boolean;
}) {
  const calls: Call[] = [];
  const reloads: string[] = [];
  /** Every read, write, push and runtime call, in order. */
  const log: string[] = [];
  const client = {
    apiVersion: () => Promise.resolve([3, 2] as const),
    haproxyVersion: () => Promise.resolve([3, 0] as const),
    getRaw: () => {
      log.push('read config');
      return Promise.resolve({ text: opts.config ?? config, version: 1 });
    },
    isHapticAgent: () => Promise.resolve(opts.agent ?? false),
    pushRaw: (
      _text: string,
      o: { skipReload?: boolean; checked?: boolean; forceReload?: boolean },
    ) => {
      log.push(
        (o.skipReload ? 'push config' : 'push config, reloading') +
          (o.checked ? ', checked' : '') +
          (o.forceReload ? ', at once' : ''),
      );
      if (!o.skipReload) reloads.push('config');
      // force_reload: the agent answers 201 once the reload is over; else 202 and a reload to follow
      const status = o.skipReload || o.forceReload ? 201 : 202;
      return Promise.resolve({ status, version: 2, reloadId: o.skipReload ? undefined : 'r1' });
    },
    listStorage: (kind: StorageKind) =>
      Promise.resolve(Object.keys(opts.storage[kind]).map((storage_name) => ({ storage_name }))),
    readStorage: (kind: StorageKind, name: string) => Promise.resolve(opts.storage[kind][name]),
    writeStorage: (kind: StorageKind, name: string, content: string) => {
      log.push(`write ${kind}/${name}`);
      opts.storage[kind][name] = content;
      return Promise.resolve();
    },
    writeStorageReloading: (kind: StorageKind, name: string, content: string) => {
      log.push(`write ${kind}/${name}, reloading`);
      opts.storage[kind][name] = content;
      reloads.push(`${kind}/${name}`);
      return Promise.resolve('r1');
    },
    deleteStorage: (kind: StorageKind, name: string) => {
      delete opts.storage[kind][name];
      return Promise.resolve();
    },
    reload: () => {
      log.push('read reload r1');
      return Promise.resolve({ id: 'r1', status: 'succeeded' });
    },
    send: (
      method: string,
      path: string,
      o: { json?: unknown; query?: Record<string, string> } = {},
    ) => {
      calls.push({ method, path, json: o.json, query: o.query });
      log.push(`${method} ${path}`);
      if (opts.fail && path === opts.fail.path)
        return Promise.reject(
          new DataplaneRequestError(`${method} ${path}: refused`, opts.fail.status),
        );
      if (method === 'GET' && path.startsWith('runtime/ssl_certs/')) {
        const base = decodeURIComponent(path.slice('runtime/ssl_certs/'.length));
        const file = opts.runtimeNames?.[base];
        if (file === undefined) return Promise.reject(new DataplaneRequestError('not found', 404));
        const body = JSON.stringify({ storage_name: base, file });
        return Promise.resolve({ status: 200, body, headers: {} });
      }
      return Promise.resolve({ status: 200, body: '', headers: {} });
    },
  };
  return { client: client as unknown as DataplaneClient, calls, reloads, log };
}

const want = (over: {
  maps?: Record<string, string>;
  certs?: Record<string, string>;
  crt?: string;
}) => ({
  haproxyConfig: config,
  maps: over.maps ?? {},
  files: {},
  sslCertificates: over.certs ?? {},
  crtLists: over.crt === undefined ? {} : { 'ingress.crtlist': over.crt },
});

describe('syncPod: runtime steps', () => {
  it('names a new certificate in its crt-list line as the API named it at runtime', async () => {
    const api = fakeApi({
      storage: {
        maps: {},
        ssl_certificates: {},
        general: { 'ingress.crtlist': 'ssl/a.pem a.example\n' },
      },
      runtimeNames: { 'a.pem': 'ssl/a.pem', 'b.pem': '/etc/haproxy/ssl/b.pem' },
    });
    const r = await syncPod(
      api.client,
      want({
        certs: { 'b.pem': 'new certificate' },
        crt: 'ssl/a.pem a.example\nssl/b.pem b.example\n',
      }),
    );
    expect(r.reloaded).toBe(false);
    const add = api.calls.find(
      (c) => c.method === 'POST' && c.path === 'runtime/ssl_crt_lists/entries',
    );
    // the configuration writes ssl/b.pem (relative to HAProxy's directory); HAProxy only finds
    // the certificate by the name it was made with
    expect(add?.json).toEqual({ file: '/etc/haproxy/ssl/b.pem', sni_filter: ['b.example'] });
    expect(api.reloads).toEqual([]);
  });

  it('keeps the line as written when the API knows no such certificate', async () => {
    const api = fakeApi({
      storage: { maps: {}, ssl_certificates: {}, general: { 'ingress.crtlist': '' } },
    });
    await syncPod(api.client, want({ crt: 'ssl/c.pem\n' }));
    const add = api.calls.find((c) => c.path === 'runtime/ssl_crt_lists/entries');
    expect(add?.json).toEqual({ file: 'ssl/c.pem' });
  });

  it('reloads from storage when a runtime step fails (a retry would find storage already current)', async () => {
    const api = fakeApi({
      storage: { maps: { 'hosts.map': 'a.example be_a\n' }, ssl_certificates: {}, general: {} },
      fail: { path: 'runtime/maps/hosts.map/entries', status: 400 },
    });
    const r = await syncPod(
      api.client,
      want({ maps: { 'hosts.map': 'a.example be_a\nb.example be_b\n' } }),
    );
    expect(r.reloaded).toBe(true);
    expect(r.reloadReasons).toEqual(['runtime: POST runtime/maps/hosts.map/entries: refused']);
    expect(r.operations.every((o) => !o.runtime)).toBe(true);
    expect(api.reloads).toEqual(['maps/hosts.map']);
    // a second sync has nothing left to do
    const again = await syncPod(
      api.client,
      want({ maps: { 'hosts.map': 'a.example be_a\nb.example be_b\n' } }),
    );
    expect(again.operations).toEqual([]);
  });

  it('reloads once after a deployment that stopped part-way, even when storage is current', async () => {
    const api = fakeApi({
      storage: { maps: { 'hosts.map': 'a.example be_a\n' }, ssl_certificates: {}, general: {} },
    });
    const same = want({ maps: { 'hosts.map': 'a.example be_a\n' } });
    expect((await syncPod(api.client, same)).reloaded).toBe(false);
    let wrote = 0;
    const r = await syncPod(api.client, same, { recover: true, onFirstWrite: () => wrote++ });
    expect(r.reloaded).toBe(true);
    expect(r.reloadReasons[0]).toMatch(/^recover: /);
    expect(api.reloads).toEqual(['config']);
    expect(wrote).toBe(1);
  });
});

describe('syncPod: a structural render whose whole check runs beside it', () => {
  const storage = () => ({
    maps: { 'hosts.map': 'a.example be_a\n' } as Record<string, string>,
    ssl_certificates: {},
    general: {} as Record<string, string>,
  });

  it('pushes a changed configuration at once: the pod checks what it reloads', async () => {
    const api = fakeApi({ storage: storage() });
    const changed = {
      ...want({}),
      haproxyConfig: `${config}backend be_new\n  server s1 10.0.0.9:80\n`,
    };
    const r = await syncPod(api.client, changed, {
      wholeCheck: new Promise<boolean>(() => undefined), // never settles: nothing may wait on it
    });
    expect(r.reloaded).toBe(true);
    expect(api.reloads).toEqual(['config']);
  });

  it('waits for the whole check before a reload from a stored file (the pod does not check it)', async () => {
    const st = storage();
    st.general['errors.http'] = 'HTTP/1.0 503\r\n\r\nold';
    const api = fakeApi({ storage: st });
    let pass!: (ok: boolean) => void;
    const wholeCheck = new Promise<boolean>((resolve) => (pass = resolve));
    const next = {
      ...want({ maps: st.maps }),
      files: { 'errors.http': 'HTTP/1.0 503\r\n\r\nnew' },
    };
    const syncing = syncPod(api.client, next, { wholeCheck });
    for (let k = 0; k < 10; k++) await new Promise((r) => setImmediate(r));
    expect(api.reloads).toEqual([]);
    expect(api.log.some((l) => l.startsWith('write'))).toBe(false);
    pass(true);
    expect((await syncing).reloaded).toBe(true);
    expect(api.reloads).toEqual(['general/errors.http']);
  });
});

describe('syncPod: a render checked only in its runtime parts', () => {
  const storage = () => ({
    maps: { 'hosts.map': 'a.example be_a\n' } as Record<string, string>,
    ssl_certificates: {},
    general: {},
  });
  const next = want({ maps: { 'hosts.map': 'a.example be_a\nb.example be_b\n' } });

  it('applies the runtime operations before it writes the stored copy', async () => {
    const api = fakeApi({ storage: storage() });
    let logAtApplied: string[] = [];
    const r = await syncPod(api.client, next, {
      wholeCheck: new Promise<boolean>(() => undefined), // never settles: nothing may wait on it
      onApplied: () => {
        logAtApplied = [...api.log];
      },
    });
    expect(r.reloaded).toBe(false);
    expect(logAtApplied.filter((l) => !l.startsWith('read'))).toEqual([
      'POST runtime/maps/hosts.map/entries',
    ]);
    expect(api.log.at(-1)).toBe('write maps/hosts.map');
    expect(api.reloads).toEqual([]);
  });

  it('plans against what the last deployment left, without reading the pod', async () => {
    const api = fakeApi({ storage: storage() });
    const first = await syncPod(api.client, want({ maps: { 'hosts.map': 'a.example be_a\n' } }));
    expect(first.known).toBeDefined();
    api.log.length = 0;
    await syncPod(api.client, next, { known: first.known! });
    expect(api.log).toEqual(['POST runtime/maps/hosts.map/entries', 'write maps/hosts.map']);
  });

  it('a refused runtime step reloads only once the whole configuration passed haproxy -c', async () => {
    const api = fakeApi({
      storage: storage(),
      fail: { path: 'runtime/maps/hosts.map/entries', status: 400 },
    });
    let pass!: (ok: boolean) => void;
    const wholeCheck = new Promise<boolean>((resolve) => (pass = resolve));
    const syncing = syncPod(api.client, next, { wholeCheck });
    await vi.waitFor(() => expect(api.log).toContain('POST runtime/maps/hosts.map/entries'));
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    // refused, and waiting for the check: nothing written, nothing reloaded yet
    expect(api.log.filter((l) => !l.startsWith('read'))).toEqual([
      'POST runtime/maps/hosts.map/entries',
    ]);
    expect(api.reloads).toEqual([]);
    pass(true);
    const r = await syncing;
    expect(r.reloaded).toBe(true);
    expect(r.reloadReasons).toEqual(['runtime: POST runtime/maps/hosts.map/entries: refused']);
    expect(api.reloads).toEqual(['maps/hosts.map']);
  });

  it('never reloads when the whole configuration failed haproxy -c', async () => {
    const api = fakeApi({
      storage: storage(),
      fail: { path: 'runtime/maps/hosts.map/entries', status: 400 },
    });
    await expect(syncPod(api.client, next, { wholeCheck: Promise.resolve(false) })).rejects.toThrow(
      /whole configuration of this render failed haproxy -c/,
    );
    expect(api.reloads).toEqual([]);
    expect(api.log.some((l) => l.startsWith('write'))).toBe(false);
  });

  it('applies its runtime operations while the stored copy ahead is written; stores only after it', async () => {
    const api = fakeApi({ storage: storage() });
    const first = await syncPod(api.client, want({ maps: { 'hosts.map': 'a.example be_a\n' } }));
    api.log.length = 0;
    let stored!: (version: number) => void;
    const priorStorage = new Promise<number>((resolve) => (stored = resolve));
    let known: unknown;
    const syncing = syncPod(api.client, next, {
      known: first.known!,
      priorStorage,
      onApplied: (a) => void (known = a.known),
    });
    await vi.waitFor(() => expect(api.log).toContain('POST runtime/maps/hosts.map/entries'));
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    // applied (and what it leaves handed to the next deployment), not stored yet
    expect(api.log).toEqual(['POST runtime/maps/hosts.map/entries']);
    expect(known).toMatchObject({ files: { maps: next.maps } });
    stored(7);
    const r = await syncing;
    expect(api.log).toEqual(['POST runtime/maps/hosts.map/entries', 'write maps/hosts.map']);
    expect(r.version).toBe(7); // the version the stored copy ahead left
  });

  it('a failed stored copy ahead fails the deployment after its runtime operations, storing nothing', async () => {
    const api = fakeApi({ storage: storage() });
    const first = await syncPod(api.client, want({ maps: { 'hosts.map': 'a.example be_a\n' } }));
    api.log.length = 0;
    const priorStorage = Promise.reject(new Error('storage write refused'));
    priorStorage.catch(() => undefined); // awaited later, by syncPod
    await expect(syncPod(api.client, next, { known: first.known!, priorStorage })).rejects.toThrow(
      /storage write refused/,
    );
    expect(api.log).toEqual(['POST runtime/maps/hosts.map/entries']);
  });
});

describe('syncPod: the stored copy of a runtime change', () => {
  const withServer = (address: string) =>
    `${config}backend be_a\n  server s1 ${address}:80 weight 1\n`;
  const pod = () => ({
    config: withServer('10.0.0.1'),
    storage: { maps: {}, ssl_certificates: {}, general: {} },
  });
  const next = { ...want({}), haproxyConfig: withServer('10.0.0.2') };

  it('goes to a haptic agent as checked once the render passed haproxy -c', async () => {
    const api = fakeApi({ ...pod(), agent: true });
    const r = await syncPod(api.client, next, { wholeCheck: Promise.resolve(true) });
    expect(r.reloaded).toBe(false);
    expect(api.log.filter((l) => !l.startsWith('read'))).toEqual([
      'PUT runtime/backends/be_a/servers/s1',
      'push config, checked',
    ]);
  });

  it('is left to the pod to check when the render failed haproxy -c or the API is not the agent', async () => {
    const failed = fakeApi({ ...pod(), agent: true });
    await syncPod(failed.client, next, { wholeCheck: Promise.resolve(false) });
    expect(failed.log.at(-1)).toBe('push config');
    // the real Dataplane API checks every push itself: nothing waits for the render's check
    const real = fakeApi(pod());
    await syncPod(real.client, next, { wholeCheck: new Promise<boolean>(() => undefined) });
    expect(real.log.at(-1)).toBe('push config');
  });

  it('has a haptic agent reload a pushed configuration at once, with no reload status to poll', async () => {
    const structural = { ...next, haproxyConfig: `${next.haproxyConfig}backend be_b\n` };
    const agent = fakeApi({ ...pod(), agent: true });
    const r = await syncPod(agent.client, structural);
    expect(r).toMatchObject({ reloaded: true, reloadId: 'r1' });
    expect(agent.log.filter((l) => !l.startsWith('read config'))).toEqual([
      'push config, reloading, at once',
    ]);
    // the Dataplane API reloads after its reload_delay: followed by its status
    const real = fakeApi(pod());
    await syncPod(real.client, structural);
    expect(real.log.filter((l) => !l.startsWith('read config'))).toEqual([
      'push config, reloading',
      'read reload r1',
    ]);
  });

  it('leaves its text unpushed once a newer push of the whole configuration takes over (issue 37)', async () => {
    const api = fakeApi({ ...pod(), agent: true });
    let supersede!: () => void;
    const superseded = new Promise<void>((r) => (supersede = r));
    const syncing = syncPod(api.client, next, {
      wholeCheck: new Promise<boolean>(() => undefined), // the render's check is still running
      superseded,
    });
    await vi.waitFor(() => expect(api.log).toContain('PUT runtime/backends/be_a/servers/s1'));
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    expect(api.log.some((l) => l.startsWith('push'))).toBe(false); // waiting for the check
    supersede();
    const r = await syncing;
    expect(api.log.some((l) => l.startsWith('push'))).toBe(false);
    expect(r.version).toBe(1); // the pod's version: the newer push goes against it
  });

  it('asks the stored copy ahead to leave its text out only when it pushes the whole configuration', async () => {
    const api = fakeApi(pod());
    const first = await syncPod(api.client, next);
    const asked: string[] = [];
    // a new backend: the configuration is pushed (and reloaded)
    const structural = { ...next, haproxyConfig: `${next.haproxyConfig}backend be_b\n` };
    await syncPod(api.client, structural, {
      known: first.known!,
      priorStorage: Promise.resolve(2),
      supersedePrior: () => asked.push('structural'),
    });
    // a runtime change only: the stored copy ahead goes on as it is
    const runtime = { ...next, haproxyConfig: withServer('10.0.0.3') };
    await syncPod(api.client, runtime, {
      known: first.known!,
      priorStorage: Promise.resolve(2),
      supersedePrior: () => asked.push('runtime'),
    });
    expect(asked).toEqual(['structural']);
  });
});
