import { rmSync } from 'node:fs';
import { expect } from 'vitest';
import type { ConformanceContext } from './conformance-context.js';
import { expectStatus, S } from './conformance-context.js';

/** serves health, info and runtime info. */
export async function healthAndInfo(c: ConformanceContext): Promise<void> {
  const { api } = c;
  await expectStatus(api.get('/v3/health'), 200);
  await expectStatus(api.get('/v3/info'), 200);
  await expectStatus(api.get(`${S}/runtime/info`), 200);
  await expectStatus(api.withCredentials('admin', 'wrong').get('/v3/health'), 401);
  await expectStatus(api.get('/v3/services/haproxy/nope'), 404);
}

/** uploads storage files (201, 400, 409). */
export async function uploadStorage(c: ConformanceContext): Promise<void> {
  const { api, pems } = c;
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
    await expectStatus(up1('ssl_certificates?skip_reload=true', name, pem!), 201);
  }
  // as the real API: a storage write without skip_reload reloads (202 + Reload-ID)
  const reloading = await expectStatus(
    up1('ssl_certificates', 'extra.pem', pems['other.example']!),
    202,
  );
  expect((await api.waitReload(reloading.headers.get('reload-id')!)).status).toBe('succeeded');
  await expectStatus(api.delete(`${S}/storage/ssl_certificates/extra.pem?skip_reload=true`), 204);
  await expectStatus(up1('ssl_certificates', 'site.pem', pems['site.example']!), 409);
  await expectStatus(up1('ssl_certificates', 'broken.pem', 'not a certificate'), 400);
  await expectStatus(
    up1('general', '503.http', 'HTTP/1.0 503 Service Unavailable\r\n\r\nsorry\n'),
    201,
  );
  await expectStatus(up1('general', 'unused.txt', 'x'), 201);
  await expectStatus(up1('general', '503.http', 'x'), 409);
  await expectStatus(up1('general', 'a/b', 'x'), 400);
  // crt-list creation has no skip_reload (only force_reload): it reloads
  for (const [name, text] of [
    ['list.txt', 'ssl/site2.pem site2.example\n'],
    ['spare.txt', 'ssl/site.pem\n'],
  ] as const) {
    const r = await expectStatus(up1('ssl_crt_lists', name, text), 202);
    await api.waitReload(r.headers.get('reload-id')!);
  }
  await expectStatus(up1('ssl_crt_lists?force_reload=true', 'forced.txt', 'ssl/site.pem\n'), 201);
  await expectStatus(api.delete(`${S}/storage/ssl_crt_lists/forced.txt?skip_reload=true`), 204);
  await expectStatus(up1('ssl_crt_lists', 'list.txt', 'x\n'), 409);
  await expectStatus(up1('ssl_crt_lists', 'cert.txt', pems['site.example']!), 400);
}

/** validates, pushes and reloads the raw configuration. */
export async function rawConfiguration(c: ConformanceContext): Promise<void> {
  const { api, cfg } = c;
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
}

/** manages storage files (200, 202, 204, 400, 404). */
export async function manageStorage(c: ConformanceContext): Promise<void> {
  const { api, pems } = c;
  for (const kind of ['maps', 'ssl_certificates', 'general', 'ssl_crt_lists']) {
    await expectStatus(api.get(`${S}/storage/${kind}`), 200);
  }
  await expectStatus(api.get(`${S}/storage/maps/hosts.map`), 200);
  await expectStatus(api.get(`${S}/storage/maps/nope.map`), 404);
  const hosts = await expectStatus(
    api.text(
      'PUT',
      `${S}/storage/maps/hosts.map`,
      'www.example.com be_app\napi.example.com be_app\n',
    ),
    202,
  );
  await api.waitReload(hosts.headers.get('reload-id')!);
  await expectStatus(
    api.text(
      'PUT',
      `${S}/storage/maps/hosts.map?skip_reload=true`,
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
    api.text(
      'PUT',
      `${S}/storage/ssl_certificates/site.pem?skip_reload=true`,
      pems['site.example']!,
    ),
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
  const delCert = await expectStatus(api.delete(`${S}/storage/ssl_certificates/unused.pem`), 202);
  await api.waitReload(delCert.headers.get('reload-id')!);
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
    api.upload('PUT', `${S}/storage/general/unused.txt?skip_reload=true`, 'unused.txt', 'y'),
    204,
  );
  await expectStatus(api.upload('PUT', `${S}/storage/general/nope`, 'nope', 'y'), 404);
  await expectStatus(api.text('PUT', `${S}/storage/general/unused.txt`, 'not multipart'), 400);
  await expectStatus(api.delete(`${S}/storage/general/unused.txt`), 204);
  await expectStatus(api.delete(`${S}/storage/general/unused.txt`), 404);
}

/** manages crt-lists and their entries. */
export async function manageCrtLists(c: ConformanceContext): Promise<void> {
  const { api, pems } = c;
  const L = `${S}/storage/ssl_crt_lists`;
  await expectStatus(api.get(`${L}/list.txt`), 200);
  await expectStatus(api.get(`${L}/nope.txt`), 404);
  await expectStatus(
    api.text('PUT', `${L}/spare.txt?skip_reload=true`, 'ssl/site.pem\nssl/site2.pem\n'),
    200,
  );
  await expectStatus(api.text('PUT', `${L}/spare.txt`, pems['site.example']!), 400);
  await expectStatus(api.text('PUT', `${L}/nope.txt`, 'x\n'), 404);
  const put = await expectStatus(
    api.text('PUT', `${L}/list.txt`, 'ssl/site2.pem site2.example\n'),
    202,
  );
  await api.waitReload(put.headers.get('reload-id')!);
  // deleted without reload, then uploaded again: the running config names it, so it reloads
  await expectStatus(api.delete(`${L}/list.txt?skip_reload=true`), 204);
  const again = await expectStatus(
    api.upload('POST', L, 'list.txt', 'ssl/site2.pem site2.example\n'),
    202,
  );
  expect((await api.waitReload(again.headers.get('reload-id')!)).status).toBe('succeeded');
  await expectStatus(api.get(`${L}/list.txt/entries`), 200);
  await expectStatus(api.get(`${L}/nope.txt/entries`), 404);
  await expectStatus(
    api.postJson(`${L}/spare.txt/entries?force_reload=true`, {
      file: 'ssl/ca.pem',
      sni_filter: ['ca.example'],
    }),
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
    api.delete(`${L}/spare.txt/entries?certificate=ssl/ca.pem&line_number=3&force_reload=true`),
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
  await expectStatus(api.delete(`${L}/spare.txt?skip_reload=true`), 204);
  await expectStatus(api.delete(`${L}/spare.txt`), 404);
}

/** reports a failed reload and keeps the old worker (storage deletes that break the config). */
export async function failedReload(c: ConformanceContext): Promise<void> {
  const { api, pems, cfg, agent } = c;
  const before = (await agent.context.haproxy.showProc()).workers[0]!.pid;
  const del = await expectStatus(api.delete(`${S}/storage/ssl_certificates/ca.pem`), 202);
  const r = await api.waitReload(del.headers.get('reload-id')!);
  expect(r.status).toBe('failed');
  expect(r.response).toMatch(/ca\.pem/);
  expect((await agent.context.haproxy.showProc()).workers[0]!.pid).toBe(before);
  const delList = await expectStatus(api.delete(`${S}/storage/ssl_crt_lists/list.txt`), 202);
  expect((await api.waitReload(delList.headers.get('reload-id')!)).status).toBe('failed');
  // recover: a configuration that no longer needs them
  const fixed = cfg()
    .replace(' ca-file ssl/ca.pem', ' verify none')
    .replace(' crt-list ssl/list.txt', '');
  const ok = await expectStatus(api.pushConfig(fixed), 202);
  expect((await api.waitReload(ok.headers.get('reload-id')!)).status).toBe('succeeded');
  expect((await agent.context.haproxy.showProc()).workers[0]!.pid).not.toBe(before);
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
    rmSync(agent.context.paths[dir], { recursive: true, force: true });
    await expectStatus(api.get(`${S}/storage/${kind}`), 404);
  }
}
