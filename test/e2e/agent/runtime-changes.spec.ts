import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import {
  freePort,
  selfSigned,
  startTestAgent,
  startUpstream,
  workerPid,
  type TestAgent,
} from './helpers.js';

// Runs on both HAProxy majors; HAPTIC_HAPROXY_BIN points at the suite's binary meanwhile.
describeForMajors(['2.6', '3.0'], 'agent runtime changes', () => {
  const S = '/v3/services/haproxy';
  let t: TestAgent;
  let up: Record<'a' | 'b' | 'c' | 'd', Awaited<ReturnType<typeof startUpstream>>>;
  let httpPort = 0;
  let tlsPort = 0;
  let site2Pem = '';
  const scratch = mkdtempSync(join(tmpdir(), 'hapt-rt-'));

  const config = (comment: string) => `global
  log stderr format raw local0 notice
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend fe
  bind "\${POD_IP}":${httpPort}
  bind "\${POD_IP}":${tlsPort} ssl crt ssl/site.pem
  use_backend %[req.hdr(host),lower,map(maps/hosts.map,be_a)]
backend be_a
  balance roundrobin
  server s1 127.0.0.1:${up.a.port}
backend be_b
  balance roundrobin
  server b1 127.0.0.1:${up.b.port}
# ${comment}
`;

  /** GET / through HAProxy with a Host header; resolves to the upstream's name. */
  function get(host: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: httpPort, path: '/', headers: { host }, agent: false },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve(body.split(' ')[0] ?? ''));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  /** The CN of the certificate HAProxy presents. */
  function servedCn(): Promise<string> {
    return new Promise((resolve, reject) => {
      const s = connect(
        { host: '127.0.0.1', port: tlsPort, rejectUnauthorized: false, servername: 'site.example' },
        () => {
          const cn = s.getPeerCertificate().subject?.CN;
          s.end();
          resolve(Array.isArray(cn) ? cn.join(',') : (cn ?? ''));
        },
      );
      s.on('error', reject);
    });
  }

  beforeAll(async () => {
    const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map((n) => startUpstream(n)));
    up = { a: a!, b: b!, c: c!, d: d! };
    httpPort = await freePort();
    tlsPort = await freePort();
    site2Pem = selfSigned('site2.example', scratch);
    t = await startTestAgent();
    expect(
      (
        await t.api.upload(
          'POST',
          `${S}/storage/ssl_certificates?skip_reload=true`,
          'site.pem',
          selfSigned('site.example', scratch),
        )
      ).status,
    ).toBe(201);
    expect(
      (await t.api.upload('POST', `${S}/storage/maps`, 'hosts.map', 'a.example be_a\n')).status,
    ).toBe(201);
    const r = await t.api.pushConfig(config('initial'), '&force_reload=true');
    expect(r.status, r.body).toBe(201);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all(Object.values(up ?? {}).map((u) => u.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('runtime changes', () => {
    it('replaces a map larger than one CLI buffer atomically (chunked payloads)', async () => {
      const pid = await workerPid(t.agent);
      const entries = Array.from({ length: 3000 }, (_, i) => ({
        key: `host-${i}.bulk.example`,
        value: 'be_b',
      }));
      entries.push({ key: 'a.example', value: 'be_a' }, { key: 'b.example', value: 'be_b' });
      const body = JSON.stringify(entries);
      expect(body.length).toBeGreaterThan(3 * 16_384);
      const put = await t.api.putJson(`${S}/runtime/maps/hosts.map`, entries);
      expect(put.status, put.body).toBe(201);
      const back = await t.api.get(`${S}/runtime/maps/hosts.map/entries`);
      expect(back.json<unknown[]>()).toHaveLength(entries.length);
      expect(await get('host-2999.bulk.example')).toBe('b');
      expect(
        readFileSync(join(t.agent.configDir, 'maps', 'hosts.map'), 'utf8')
          .split('\n')
          .filter(Boolean),
      ).toHaveLength(entries.length);
      // back to the small map the next test starts from
      expect(
        (await t.api.putJson(`${S}/runtime/maps/hosts.map`, [{ key: 'a.example', value: 'be_a' }]))
          .status,
      ).toBe(201);
      expect(await workerPid(t.agent)).toBe(pid);
    });

    it('change what HAProxy serves without a reload, and survive a later reload', async () => {
      const pid = await workerPid(t.agent);
      const version = await t.api.version();
      expect(await get('a.example')).toBe('a');
      expect(await get('b.example')).toBe('a');
      expect(await servedCn()).toBe('site.example');

      // server address: be_a/s1 now points at upstream c
      const put = await t.api.putJson(`${S}/runtime/backends/be_a/servers/s1`, {
        address: '127.0.0.1',
        port: up.c.port,
      });
      expect(put.status, put.body).toBe(200);
      expect(await get('a.example')).toBe('c');
      // dynamic server: add d to be_b, put b1 into maintenance
      const add = await t.api.postJson(`${S}/runtime/backends/be_b/servers`, {
        name: 'dyn',
        address: '127.0.0.1',
        port: up.d.port,
      });
      expect(add.status, add.body).toBe(201);
      expect(
        (await t.api.putJson(`${S}/runtime/backends/be_b/servers/b1`, { admin_state: 'maint' }))
          .status,
      ).toBe(200);
      // map: route b.example to be_b (atomic replace), then add one entry
      const map = await t.api.putJson(`${S}/runtime/maps/hosts.map`, [
        { key: 'a.example', value: 'be_a' },
        { key: 'b.example', value: 'be_b' },
      ]);
      expect(map.status, map.body).toBe(201);
      expect(await get('b.example')).toBe('d');
      // values with ';' and spaces reach HAProxy as one literal value, never as a second command
      // force_sync: written to the map file too, so the reload below keeps it
      const odd = await t.api.postJson(`${S}/runtime/maps/hosts.map/entries?force_sync=true`, {
        key: 'odd.example',
        value: 'be_b;show info',
      });
      expect(odd.status, odd.body).toBe(201);
      const back = await t.api.get(`${S}/runtime/maps/hosts.map/entries/odd.example`);
      expect(back.json<{ value: string }>().value).toBe('be_b;show info');
      expect(
        (
          await t.api.postJson(`${S}/runtime/maps/hosts.map/entries`, {
            key: 'nl.example',
            value: 'be_b\nshow info',
          })
        ).status,
      ).toBe(400);
      // certificate: swap the served certificate through the runtime endpoint (set + commit ssl cert)
      const cert = await t.api.upload(
        'PUT',
        `${S}/runtime/ssl_certs/site.pem`,
        'site.pem',
        site2Pem,
      );
      expect(cert.status, cert.body).toBe(200);
      expect(await servedCn()).toBe('site2.example');

      // a configuration pushed with skip_reload plus X-Runtime-Actions: file and runtime agree, no reload
      const cfgNow = (await t.api.get(`${S}/configuration/raw`)).body.replace(
        /server dyn (\S+)/,
        'server dyn $1 weight 7',
      );
      const withActions = await t.api.request(
        'POST',
        `${S}/configuration/raw?version=${version}&skip_reload=true`,
        {
          body: cfgNow,
          contentType: 'text/plain',
          headers: { 'X-Runtime-Actions': 'SetServerWeight be_b dyn 7' },
        },
      );
      expect(withActions.status, withActions.body).toBe(201);
      const dyn = await t.api.get(`${S}/runtime/backends/be_b/servers/dyn`);
      expect(dyn.json<{ uweight: number }>().uweight).toBe(7);

      expect(await workerPid(t.agent)).toBe(pid);
      expect(await t.api.version()).toBe(version + 1);
      const cfg = readFileSync(t.agent.context.paths.configFile, 'utf8');
      expect(cfg).toContain(`server s1 127.0.0.1:${up.c.port}`);
      expect(cfg).toMatch(new RegExp(`server dyn 127.0.0.1:${up.d.port}`));
      expect(cfg).toMatch(/server b1 \S+ disabled/);

      // a later reload (new configuration) keeps every runtime change
      const raw = (await t.api.get(`${S}/configuration/raw`)).body.replace(
        '# initial',
        '# reloaded',
      );
      const r = await t.api.pushConfig(raw);
      expect(r.status, r.body).toBe(202);
      expect((await t.api.waitReload(r.headers.get('reload-id')!)).status).toBe('succeeded');
      expect(await workerPid(t.agent)).not.toBe(pid);
      expect(await get('a.example')).toBe('c');
      expect(await get('b.example')).toBe('d');
      expect(await servedCn()).toBe('site2.example');
      const entry = await t.api.get(`${S}/runtime/maps/hosts.map/entries/odd.example`);
      expect(entry.json<{ value: string }>().value).toBe('be_b;show info');
    });
  });
});
