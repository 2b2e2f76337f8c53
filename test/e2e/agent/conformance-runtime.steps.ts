import { expect } from 'vitest';
import type { ConformanceContext } from './conformance-context.js';
import { expectStatus, S } from './conformance-context.js';

/** reads and changes runtime servers (200, 201, 204, 400, 404, 409). */
export async function runtimeServers(c: ConformanceContext): Promise<void> {
  const { api, up } = c;
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
}

/** reads and changes runtime maps (200, 201, 204, 400, 404, 409). */
export async function runtimeMaps(c: ConformanceContext): Promise<void> {
  const { api } = c;
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
}

/** manages runtime SSL certificates (200, 201, 204, 400, 409). */
export async function runtimeSsl(c: ConformanceContext): Promise<void> {
  const { api, pems } = c;
  const C = `${S}/runtime/ssl_certs`;
  await expectStatus(api.get(C), 200);
  await expectStatus(api.get(`${C}/site.pem`), 200);
  await expectStatus(api.upload('POST', C, 'fresh.pem', pems['new.example']!), 201);
  await expectStatus(api.upload('POST', C, 'fresh.pem', pems['new.example']!), 409);
  await expectStatus(api.upload('POST', C, 'junk.pem', 'junk'), 400);
  // runtime crt-list entries (3.2+ paths): the new certificate served for its SNI, then removed
  const L = `${S}/runtime/ssl_crt_lists`;
  const lists = (await expectStatus(api.get(L), 200)).json<{ file: string }[]>();
  expect(lists.map((l) => l.file)).toContain('ssl/list.txt');
  const fresh = (await expectStatus(api.get(`${C}/fresh.pem`), 200)).json<{ file: string }>().file;
  await expectStatus(
    api.postJson(`${L}/entries?name=list.txt`, { file: fresh, sni_filter: ['new.example'] }),
    201,
  );
  await expectStatus(api.postJson(`${L}/entries?name=list.txt`, { sni_filter: ['x'] }), 400);
  await expectStatus(api.postJson(`${L}/entries?name=nope.txt`, { file: fresh }), 404);
  const entries = (await expectStatus(api.get(`${L}/entries?name=list.txt`), 200)).json<
    { file: string; line_number: number; sni_filter?: string[] }[]
  >();
  const added = entries.find((e) => e.file === fresh);
  expect(added?.sni_filter).toEqual(['new.example']);
  await expectStatus(
    api.delete(
      `${L}/entries?name=list.txt&cert_file=${encodeURIComponent(fresh)}&line_number=${added!.line_number}`,
    ),
    204,
  );
  await expectStatus(
    api.delete(`${L}/entries?name=list.txt&cert_file=${encodeURIComponent(fresh)}`),
    404,
  );
  await expectStatus(api.delete(`${L}/entries?name=list.txt`), 400);
  await expectStatus(api.upload('PUT', `${C}/site.pem`, 'site.pem', pems['site.example']!), 200);
  await expectStatus(api.upload('PUT', `${C}/site.pem`, 'site.pem', 'junk'), 400);
  await expectStatus(api.delete(`${C}/fresh.pem`), 204);
  await expectStatus(api.delete(`${C}/site.pem`), 400);
}

/** runs transactions and configuration server changes. */
export async function transactions(c: ConformanceContext): Promise<void> {
  const { api, up } = c;
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
}

/** changes configuration servers directly with a version. */
export async function configServers(c: ConformanceContext): Promise<void> {
  const { api, up } = c;
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
}
