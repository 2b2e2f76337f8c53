import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConformanceRecorder } from './coverage.js';
import {
  freePort,
  type ApiAnswer,
  selfSigned,
  startTestAgent,
  startUpstream,
  type ApiClient,
  type TestAgent,
} from './helpers.js';

const S = '/v3/services/haproxy';
const rec = new ConformanceRecorder();
let t: TestAgent;
let api: ApiClient;
let up: Awaited<ReturnType<typeof startUpstream>>;
let pems: Record<string, string>;
let cfg: (extra?: string) => string;
const scratch = mkdtempSync(join(tmpdir(), 'hapt-pem-'));

/** Statuses the agent cannot produce honestly; listed, with why, in the printed table. */
const UNREACHABLE: Record<string, string> = {
  'GET    /services/haproxy/runtime/maps 404': 'listing runtime maps has no not-found case',
  'POST   /services/haproxy/storage/ssl_crt_lists 202':
    'a new crt-list cannot be referenced by the running config yet',
};

beforeAll(async () => {
  up = await startUpstream('app');
  t = await startTestAgent();
  api = t.api;
  api.observer = rec.observe;
  pems = Object.fromEntries(
    ['site.example', 'site2.example', 'ca.example', 'new.example', 'other.example'].map((n) => [
      n,
      selfSigned(n, scratch),
    ]),
  );
  const http = await freePort();
  const https = await freePort();
  cfg = (extra = '') => `global
  log stderr format raw local0 notice
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
  errorfile 503 general/503.http
frontend fe_http
  bind "\${POD_IP}":${http}
  acl blocked src -f maps/blocked.lst
  http-request deny if blocked
  http-request set-header X-Other %[req.hdr(host),map(maps/other.map,none)]
  use_backend %[req.hdr(host),lower,map(maps/hosts.map,be_app)]
frontend fe_tls
  bind "\${POD_IP}":${https} ssl crt ssl/site.pem crt-list ssl/list.txt
  default_backend be_app
backend be_app
  balance roundrobin
  server s1 127.0.0.1:${up.port}
  server s3 127.0.0.1:${up.port} check
backend be_track
  balance roundrobin
  server t1 127.0.0.1:${up.port} track be_app/s3
backend be_hash
  balance source
  hash-type map-based
  server h1 127.0.0.1:${up.port}
backend be_tls
  balance roundrobin
  server x1 127.0.0.1:${up.port} ssl verify required ca-file ssl/ca.pem
${extra}`;
});

afterAll(async () => {
  await t?.close();
  await up?.close();
  rmSync(scratch, { recursive: true, force: true });
  const table = rec.table(t.agent.routes);
  const lines = table.map(
    (r) =>
      `${r.hit ? 'ok  ' : UNREACHABLE[r.row] ? 'n/a ' : 'MISS'} ${r.row}${UNREACHABLE[r.row] ? `  (${UNREACHABLE[r.row]})` : ''}`,
  );
  const hit = table.filter((r) => r.hit).length;
  process.stdout.write(
    `\nagent API coverage (path x method x documented status, spec 3.4): ${hit}/${table.length} exercised, ` +
      `${rec.count} responses validated against 3.4 and 3.0, violations: ${rec.violations.length}, ` +
      `3.0/3.4 spec conflicts (3.4 followed): ${rec.specConflicts.length}\n${lines.join('\n')}\n` +
      rec.specConflicts
        .map(
          (c) => `spec conflict (3.0): ${c.method} ${c.path} ${c.status}: ${c.errors.join('; ')}\n`,
        )
        .join(''),
  );
});

const expectStatus = async (p: Promise<ApiAnswer>, status: number): Promise<ApiAnswer> => {
  const a = await p;
  expect(a.status, a.body).toBe(status);
  return a;
};

describe('agent API against the Dataplane API specification', () => {
  it('serves health, info and runtime info', async () => {
    await expectStatus(api.get('/v3/health'), 200);
    await expectStatus(api.get('/v3/info'), 200);
    await expectStatus(api.get(`${S}/runtime/info`), 200);
    await expectStatus(api.withCredentials('admin', 'wrong').get('/v3/health'), 401);
    await expectStatus(api.get('/v3/services/haproxy/nope'), 404);
  });

  it('uploads storage files (201, 400, 409)', async () => {
    const up1 = (kind: string, name: string, content: string) =>
      api.upload('POST', `${S}/storage/${kind}`, name, content);
    await expectStatus(up1('maps', 'hosts.map', 'www.example.com be_app\n'), 201);
    await expectStatus(up1('maps', 'blocked.lst', '192.0.2.1\n'), 201);
    await expectStatus(up1('maps', 'other.map', 'a b\n'), 201);
    await expectStatus(up1('maps', 'unused.map', 'x y\n'), 201);
    await expectStatus(up1('maps', 'hosts.map', 'dup\n'), 409);
    await expectStatus(up1('maps', '..evil', 'x\n'), 400);
    for (const [name, pem] of [
      ['site.pem', pems['site.example']],
      ['site2.pem', pems['site2.example']],
      ['ca.pem', pems['ca.example']],
      ['unused.pem', pems['other.example']],
    ] as const) {
      await expectStatus(up1('ssl_certificates', name, pem!), 201);
    }
    await expectStatus(up1('ssl_certificates', 'site.pem', pems['site.example']!), 409);
    await expectStatus(up1('ssl_certificates', 'broken.pem', 'not a certificate'), 400);
    await expectStatus(
      up1('general', '503.http', 'HTTP/1.0 503 Service Unavailable\r\n\r\nsorry\n'),
      201,
    );
    await expectStatus(up1('general', 'unused.txt', 'x'), 201);
    await expectStatus(up1('general', '503.http', 'x'), 409);
    await expectStatus(up1('general', 'a/b', 'x'), 400);
    await expectStatus(up1('ssl_crt_lists', 'list.txt', 'ssl/site2.pem site2.example\n'), 201);
    await expectStatus(up1('ssl_crt_lists', 'spare.txt', 'ssl/site.pem\n'), 201);
    await expectStatus(up1('ssl_crt_lists', 'list.txt', 'x\n'), 409);
    await expectStatus(up1('ssl_crt_lists', 'cert.txt', pems['site.example']!), 400);
  });

  it('validates, pushes and reloads the raw configuration', async () => {
    const v = await api.version();
    await expectStatus(api.get(`${S}/configuration/version?transaction_id=nope`), 404);
    await expectStatus(api.text('POST', `${S}/configuration/raw?only_validate=true`, cfg()), 202);
    const bad = await expectStatus(
      api.text(
        'POST',
        `${S}/configuration/raw?version=${v}`,
        `${cfg()}backend broken\n  server b 127.0.0.1:abc\n`,
      ),
      400,
    );
    expect(bad.body).toContain('abc');
    await expectStatus(api.text('POST', `${S}/configuration/raw?version=${v + 5}`, cfg()), 409);
    const forced = await expectStatus(
      api.text('POST', `${S}/configuration/raw?version=${v}&force_reload=true`, cfg()),
      201,
    );
    expect(forced.body.split('\n')[0]).toBe(`# _version=${v + 1}`);
    const queued = await expectStatus(
      api.text('POST', `${S}/configuration/raw?version=${v + 1}`, cfg('# change 1\n')),
      202,
    );
    const id = queued.headers.get('reload-id')!;
    expect((await api.waitReload(id)).status).toBe('succeeded');
    await expectStatus(api.get(`${S}/reloads`), 200);
    await expectStatus(api.get(`${S}/reloads/${id}`), 200);
    await expectStatus(api.get(`${S}/reloads/2001-01-01-999`), 404);
    await expectStatus(
      api.text(
        'POST',
        `${S}/configuration/raw?skip_version=true&skip_reload=true`,
        cfg('# change 2\n'),
      ),
      201,
    );
    const raw = await expectStatus(api.get(`${S}/configuration/raw`), 200);
    expect(raw.body).toContain('# change 2');
  });

  it('manages storage files (200, 202, 204, 400, 404)', async () => {
    for (const kind of ['maps', 'ssl_certificates', 'general', 'ssl_crt_lists']) {
      await expectStatus(api.get(`${S}/storage/${kind}`), 200);
    }
    await expectStatus(api.get(`${S}/storage/maps/hosts.map`), 200);
    await expectStatus(api.get(`${S}/storage/maps/nope.map`), 404);
    await expectStatus(
      api.text(
        'PUT',
        `${S}/storage/maps/hosts.map`,
        'www.example.com be_app\napi.example.com be_app\n',
      ),
      204,
    );
    const acl = await expectStatus(
      api.text('PUT', `${S}/storage/maps/blocked.lst`, '192.0.2.2\n'),
      202,
    );
    await api.waitReload(acl.headers.get('reload-id')!);
    await expectStatus(api.text('PUT', `${S}/storage/maps/nope.map`, 'a b\n'), 404);
    await expectStatus(api.text('PUT', `${S}/storage/maps/bad..name`, 'a b\n'), 400);
    await expectStatus(api.delete(`${S}/storage/maps/unused.map`), 204);
    await expectStatus(api.delete(`${S}/storage/maps/unused.map`), 404);

    await expectStatus(api.get(`${S}/storage/ssl_certificates/site.pem`), 200);
    await expectStatus(api.get(`${S}/storage/ssl_certificates/nope.pem`), 404);
    await expectStatus(
      api.text('PUT', `${S}/storage/ssl_certificates/site.pem`, pems['site.example']!),
      200,
    );
    const ca = await expectStatus(
      api.text('PUT', `${S}/storage/ssl_certificates/ca.pem`, pems['ca.example']!),
      202,
    );
    await api.waitReload(ca.headers.get('reload-id')!);
    await expectStatus(api.text('PUT', `${S}/storage/ssl_certificates/site.pem`, 'garbage'), 400);
    await expectStatus(
      api.text('PUT', `${S}/storage/ssl_certificates/nope.pem`, pems['ca.example']!),
      404,
    );
    await expectStatus(api.delete(`${S}/storage/ssl_certificates/unused.pem`), 204);
    await expectStatus(api.delete(`${S}/storage/ssl_certificates/unused.pem`), 404);

    await expectStatus(api.get(`${S}/storage/general/503.http`), 200);
    await expectStatus(api.get(`${S}/storage/general/nope`), 404);
    const g = await expectStatus(
      api.upload(
        'PUT',
        `${S}/storage/general/503.http`,
        '503.http',
        'HTTP/1.0 503 Service Unavailable\r\n\r\nsorry again\n',
      ),
      202,
    );
    await api.waitReload(g.headers.get('reload-id')!);
    await expectStatus(
      api.upload('PUT', `${S}/storage/general/unused.txt`, 'unused.txt', 'y'),
      204,
    );
    await expectStatus(api.upload('PUT', `${S}/storage/general/nope`, 'nope', 'y'), 404);
    await expectStatus(api.text('PUT', `${S}/storage/general/unused.txt`, 'not multipart'), 400);
    await expectStatus(api.delete(`${S}/storage/general/unused.txt`), 204);
    await expectStatus(api.delete(`${S}/storage/general/unused.txt`), 404);
  });

  it('manages crt-lists and their entries', async () => {
    const L = `${S}/storage/ssl_crt_lists`;
    await expectStatus(api.get(`${L}/list.txt`), 200);
    await expectStatus(api.get(`${L}/nope.txt`), 404);
    await expectStatus(api.text('PUT', `${L}/spare.txt`, 'ssl/site.pem\nssl/site2.pem\n'), 200);
    await expectStatus(api.text('PUT', `${L}/spare.txt`, pems['site.example']!), 400);
    await expectStatus(api.text('PUT', `${L}/nope.txt`, 'x\n'), 404);
    const put = await expectStatus(
      api.text('PUT', `${L}/list.txt`, 'ssl/site2.pem site2.example\n'),
      202,
    );
    await api.waitReload(put.headers.get('reload-id')!);
    await expectStatus(api.get(`${L}/list.txt/entries`), 200);
    await expectStatus(api.get(`${L}/nope.txt/entries`), 404);
    await expectStatus(
      api.postJson(`${L}/spare.txt/entries`, { file: 'ssl/ca.pem', sni_filter: ['ca.example'] }),
      201,
    );
    await expectStatus(
      api.postJson(`${L}/spare.txt/entries`, { file: 'ssl/ca.pem', sni_filter: ['ca.example'] }),
      409,
    );
    await expectStatus(api.postJson(`${L}/spare.txt/entries`, { sni_filter: ['x'] }), 400);
    const add = await expectStatus(
      api.postJson(`${L}/list.txt/entries`, {
        file: 'ssl/site.pem',
        ssl_bind_config: 'alpn h2,http/1.1',
        sni_filter: ['www.site.example'],
      }),
      202,
    );
    await api.waitReload(add.headers.get('reload-id')!);
    await expectStatus(
      api.delete(`${L}/spare.txt/entries?certificate=ssl/ca.pem&line_number=3`),
      204,
    );
    await expectStatus(
      api.delete(`${L}/spare.txt/entries?certificate=ssl/ca.pem&line_number=3`),
      404,
    );
    await expectStatus(api.delete(`${L}/spare.txt/entries?certificate=ssl/ca.pem`), 400);
    const del = await expectStatus(
      api.delete(`${L}/list.txt/entries?certificate=ssl/site.pem&line_number=2`),
      202,
    );
    await api.waitReload(del.headers.get('reload-id')!);
    await expectStatus(api.delete(`${L}/spare.txt`), 204);
    await expectStatus(api.delete(`${L}/spare.txt`), 404);
  });

  it('reads and changes runtime servers (200, 201, 204, 400, 404, 409)', async () => {
    const B = `${S}/runtime/backends`;
    await expectStatus(api.get(`${B}/be_app/servers`), 200);
    await expectStatus(api.get(`${B}/nope/servers`), 404);
    await expectStatus(api.get(`${B}/be_app/servers/s1`), 200);
    await expectStatus(api.get(`${B}/be_app/servers/nope`), 404);
    await expectStatus(
      api.putJson(`${B}/be_app/servers/s1`, {
        address: '127.0.0.1',
        port: up.port,
        admin_state: 'ready',
      }),
      200,
    );
    await expectStatus(api.putJson(`${B}/be_app/servers/s1`, { address: 'not_an_ip' }), 400);
    await expectStatus(api.putJson(`${B}/be_app/servers/nope`, { admin_state: 'drain' }), 404);
    await expectStatus(
      api.postJson(`${B}/be_app/servers`, {
        name: 'dyn1',
        address: '127.0.0.1',
        port: up.port,
        weight: 10,
      }),
      201,
    );
    await expectStatus(
      api.postJson(`${B}/be_app/servers`, { name: 'dyn1', address: '127.0.0.1', port: up.port }),
      409,
    );
    await expectStatus(
      api.postJson(`${B}/nope/servers`, { name: 'dyn1', address: '127.0.0.1', port: up.port }),
      404,
    );
    await expectStatus(
      api.postJson(`${B}/be_hash/servers`, { name: 'dyn1', address: '127.0.0.1', port: up.port }),
      400,
    );
    await expectStatus(api.delete(`${B}/be_app/servers/dyn1`), 204);
    await expectStatus(api.delete(`${B}/be_app/servers/dyn1`), 404);
    const tracked = await expectStatus(api.delete(`${B}/be_app/servers/s3`), 400);
    expect(tracked.body).toMatch(/track|cannot/i);
  });

  it('reads and changes runtime maps (200, 201, 204, 400, 404, 409)', async () => {
    const M = `${S}/runtime/maps`;
    await expectStatus(api.get(M), 200);
    await expectStatus(api.get(`${M}/hosts.map`), 200);
    await expectStatus(api.get(`${M}/nope.map`), 404);
    await expectStatus(
      api.putJson(`${M}/hosts.map`, [
        { key: 'www.example.com', value: 'be_app' },
        { key: 'b.example.com', value: 'be_app' },
      ]),
      201,
    );
    await expectStatus(api.putJson(`${M}/hosts.map`, [{ key: 'has space', value: 'x' }]), 400);
    await expectStatus(api.get(`${M}/hosts.map/entries`), 200);
    await expectStatus(api.get(`${M}/nope.map/entries`), 404);
    await expectStatus(
      api.postJson(`${M}/hosts.map/entries`, { key: 'c.example.com', value: 'be_app' }),
      201,
    );
    await expectStatus(
      api.postJson(`${M}/hosts.map/entries`, { key: 'c.example.com', value: 'be_app' }),
      409,
    );
    await expectStatus(api.postJson(`${M}/hosts.map/entries`, { key: 'x', value: 'a\nb' }), 400);
    await expectStatus(api.get(`${M}/hosts.map/entries/c.example.com`), 200);
    await expectStatus(api.get(`${M}/hosts.map/entries/nope`), 404);
    await expectStatus(
      api.putJson(`${M}/hosts.map/entries/c.example.com`, { value: 'be_track' }),
      200,
    );
    await expectStatus(api.putJson(`${M}/hosts.map/entries/nope`, { value: 'be_track' }), 404);
    await expectStatus(api.putJson(`${M}/hosts.map/entries/c.example.com`, { value: '' }), 400);
    await expectStatus(api.delete(`${M}/hosts.map/entries/c.example.com`), 204);
    await expectStatus(api.delete(`${M}/hosts.map/entries/c.example.com`), 404);
    await expectStatus(api.delete(`${M}/other.map`), 204);
    await expectStatus(api.delete(`${M}/nope.map`), 404);
  });

  it('manages runtime SSL certificates (200, 201, 204, 400, 409)', async () => {
    const C = `${S}/runtime/ssl_certs`;
    await expectStatus(api.get(C), 200);
    await expectStatus(api.get(`${C}/site.pem`), 200);
    await expectStatus(api.upload('POST', C, 'fresh.pem', pems['new.example']!), 201);
    await expectStatus(api.upload('POST', C, 'fresh.pem', pems['new.example']!), 409);
    await expectStatus(api.upload('POST', C, 'junk.pem', 'junk'), 400);
    await expectStatus(api.upload('PUT', `${C}/site.pem`, 'site.pem', pems['site.example']!), 200);
    await expectStatus(api.upload('PUT', `${C}/site.pem`, 'site.pem', 'junk'), 400);
    await expectStatus(api.delete(`${C}/fresh.pem`), 204);
    await expectStatus(api.delete(`${C}/site.pem`), 400);
  });

  it('runs transactions and configuration server changes', async () => {
    const T = `${S}/transactions`;
    const v = await api.version();
    await expectStatus(api.request('POST', `${T}?version=${v + 9}`), 409);
    await expectStatus(api.request('POST', T), 400);
    const tx = (await expectStatus(api.request('POST', `${T}?version=${v}`), 201)).json<{
      id: string;
    }>();
    await expectStatus(api.get(T), 200);
    await expectStatus(api.get(`${T}/${tx.id}`), 200);
    await expectStatus(api.get(`${T}/nope`), 404);
    const SV = `${S}/configuration/backends/be_app/servers`;
    await expectStatus(api.get(`${S}/configuration/backends?transaction_id=${tx.id}`), 200);
    await expectStatus(
      api.postJson(`${SV}?transaction_id=${tx.id}`, {
        name: 'cfg1',
        address: '127.0.0.1',
        port: up.port,
      }),
      201,
    );
    await expectStatus(
      api.putJson(`${SV}/cfg1?transaction_id=${tx.id}`, {
        address: '127.0.0.1',
        port: up.port,
        weight: 5,
      }),
      200,
    );
    await expectStatus(api.get(`${SV}/cfg1?transaction_id=${tx.id}`), 200);
    await expectStatus(api.get(`${SV}/cfg1`), 404);
    await expectStatus(api.get(`${SV}?transaction_id=${tx.id}`), 200);
    const commit = await expectStatus(api.request('PUT', `${T}/${tx.id}`), 202);
    await api.waitReload(commit.headers.get('reload-id')!);
    await expectStatus(api.request('PUT', `${T}/nope`), 404);
    // outdated: a commit after someone else changed the configuration
    const v2 = await api.version();
    const old = (await expectStatus(api.request('POST', `${T}?version=${v2}`), 201)).json<{
      id: string;
    }>();
    const tx2 = (await expectStatus(api.request('POST', `${T}?version=${v2}`), 201)).json<{
      id: string;
    }>();
    await expectStatus(api.delete(`${SV}/cfg1?transaction_id=${tx2.id}`), 204);
    await expectStatus(api.request('PUT', `${T}/${tx2.id}?force_reload=true`), 200);
    await expectStatus(api.request('PUT', `${T}/${old.id}`), 409);
    // failed: an invalid change is refused at commit, then the transaction cannot be committed
    const v3 = await api.version();
    const bad = (await expectStatus(api.request('POST', `${T}?version=${v3}`), 201)).json<{
      id: string;
    }>();
    await expectStatus(
      api.postJson(`${SV}?transaction_id=${bad.id}`, {
        name: 'bad1',
        address: 'no.such.host.invalid',
        port: 80,
      }),
      201,
    );
    await expectStatus(api.request('PUT', `${T}/${bad.id}`), 400);
    await expectStatus(api.request('PUT', `${T}/${bad.id}`), 406);
    await expectStatus(api.delete(`${T}/${bad.id}`), 204);
    await expectStatus(api.delete(`${T}/${bad.id}`), 404);
    // too many open transactions
    const open: string[] = [];
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) {
      const a = await api.request('POST', `${T}?version=${v3}`);
      last = a.status;
      if (a.status === 201) open.push(a.json<{ id: string }>().id);
    }
    expect(last).toBe(429);
    for (const id of open) await api.delete(`${T}/${id}`);
  });

  it('changes configuration servers directly with a version', async () => {
    const SV = `${S}/configuration/backends/be_app/servers`;
    let v = await api.version();
    const add = await expectStatus(
      api.postJson(`${SV}?version=${v}`, { name: 'cfg2', address: '127.0.0.1', port: up.port }),
      202,
    );
    await api.waitReload(add.headers.get('reload-id')!);
    v = await api.version();
    await expectStatus(
      api.postJson(`${SV}?version=${v}&force_reload=true`, {
        name: 'cfg3',
        address: '127.0.0.1',
        port: up.port,
      }),
      201,
    );
    v = await api.version();
    await expectStatus(
      api.postJson(`${SV}?version=${v}`, { name: 'cfg2', address: '127.0.0.1', port: up.port }),
      409,
    );
    await expectStatus(
      api.postJson(`${SV}?version=${v}`, { name: 'bad name', address: '127.0.0.1' }),
      400,
    );
    await expectStatus(
      api.putJson(`${SV}/cfg2?version=${v}&force_reload=true`, {
        address: '127.0.0.1',
        port: up.port,
        weight: 3,
      }),
      200,
    );
    v = await api.version();
    const put = await expectStatus(
      api.putJson(`${SV}/cfg2?version=${v}`, { address: '127.0.0.1', port: up.port, weight: 4 }),
      202,
    );
    await api.waitReload(put.headers.get('reload-id')!);
    v = await api.version();
    await expectStatus(api.putJson(`${SV}/cfg2?version=${v}`, { address: '' }), 400);
    await expectStatus(api.putJson(`${SV}/nope?version=${v}`, { address: '127.0.0.1' }), 404);
    const del = await expectStatus(api.delete(`${SV}/cfg2?version=${v}`), 202);
    await api.waitReload(del.headers.get('reload-id')!);
    v = await api.version();
    await expectStatus(api.delete(`${SV}/cfg3?version=${v}&force_reload=true`), 204);
    await expectStatus(api.delete(`${SV}/nope?version=${await api.version()}`), 404);
  });

  it('reports a failed reload and keeps the old worker (storage deletes that break the config)', async () => {
    const before = (await t.agent.context.haproxy.showProc()).workers[0]!.pid;
    const del = await expectStatus(api.delete(`${S}/storage/ssl_certificates/ca.pem`), 202);
    const r = await api.waitReload(del.headers.get('reload-id')!);
    expect(r.status).toBe('failed');
    expect(r.response).toMatch(/ca\.pem/);
    expect((await t.agent.context.haproxy.showProc()).workers[0]!.pid).toBe(before);
    const delList = await expectStatus(api.delete(`${S}/storage/ssl_crt_lists/list.txt`), 202);
    expect((await api.waitReload(delList.headers.get('reload-id')!)).status).toBe('failed');
    // recover: a configuration that no longer needs them
    const fixed = cfg()
      .replace(' ca-file ssl/ca.pem', ' verify none')
      .replace(' crt-list ssl/list.txt', '');
    const ok = await expectStatus(api.pushConfig(fixed), 202);
    expect((await api.waitReload(ok.headers.get('reload-id')!)).status).toBe('succeeded');
    expect((await t.agent.context.haproxy.showProc()).workers[0]!.pid).not.toBe(before);
    // a bind that loads the whole ssl/ directory: a new certificate there needs a reload
    const dirBind = await expectStatus(
      api.pushConfig(fixed.replace('crt ssl/site.pem', 'crt ssl/')),
      202,
    );
    expect((await api.waitReload(dirBind.headers.get('reload-id')!)).status).toBe('succeeded');
    const added = await expectStatus(
      api.upload('POST', `${S}/storage/ssl_certificates`, 'third.pem', pems['other.example']!),
      202,
    );
    expect((await api.waitReload(added.headers.get('reload-id')!)).status).toBe('succeeded');
    // storage listings answer 404 once their directory is gone
    for (const kind of ['maps', 'ssl_certificates', 'general', 'ssl_crt_lists']) {
      const dir = {
        maps: 'mapsDir',
        ssl_certificates: 'sslDir',
        general: 'generalDir',
        ssl_crt_lists: 'sslDir',
      }[kind] as 'mapsDir';
      rmSync(t.agent.context.paths[dir], { recursive: true, force: true });
      await expectStatus(api.get(`${S}/storage/${kind}`), 404);
    }
  });

  it('answers every request within the specifications', () => {
    expect(rec.violations).toEqual([]);
    const missing = rec.table(t.agent.routes).filter((r) => !r.hit && !UNREACHABLE[r.row]);
    expect(missing.map((m) => m.row)).toEqual([]);
  });
});
