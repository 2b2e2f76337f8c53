import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKED_HEADER, checkedToken } from '#haproxy-config';
import { describeForMajors } from '#testbed/testing';
import {
  freePort,
  PASSWORD,
  selfSigned,
  startTestAgent,
  startUpstream,
  USER,
  type TestAgent,
} from './helpers.js';

/**
 * The agent tells the truth about reloads, as the real Dataplane API does: a storage write
 * without `skip_reload` reloads (202 + Reload-ID); `skip_reload` and the runtime endpoints do
 * not. Reloads are counted from HAProxy's master (`show proc`), not from the agent's list.
 */
describeForMajors(['2.6', '3.0'], 'agent storage writes and reloads', () => {
  const S = '/v3/services/haproxy';
  let t: TestAgent;
  let up: Awaited<ReturnType<typeof startUpstream>>;
  let port = 0;
  const masterReloads = async () =>
    (await t.agent.context.haproxy.showProc()).master?.reloads ?? -1;

  beforeAll(async () => {
    up = await startUpstream('a');
    port = await freePort();
    t = await startTestAgent();
    expect(
      (await t.api.upload('POST', `${S}/storage/maps`, 'hosts.map', 'a.example be_a\n')).status,
    ).toBe(201);
    const cfg = `global
  log stderr format raw local0 notice
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend fe
  bind "\${POD_IP}":${port}
  use_backend %[req.hdr(host),lower,map(maps/hosts.map,be_a)]
backend be_a
  server s1 127.0.0.1:${up.port}
`;
    expect((await t.api.pushConfig(cfg, '&force_reload=true')).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await up?.close();
  });

  describe('storage writes', () => {
    it('a map storage write without skip_reload reloads (202 + Reload-ID), counted from the master', async () => {
      const before = await masterReloads();
      const r = await t.api.text('PUT', `${S}/storage/maps/hosts.map`, 'b.example be_a\n');
      expect(r.status).toBe(202);
      const id = r.headers.get('reload-id');
      expect(id).toMatch(/^\d{4}-\d{2}-\d{2}-\d+$/);
      expect((await t.api.waitReload(id!)).status).toBe('succeeded');
      expect(await masterReloads()).toBe(before + 1);
    });

    it('skip_reload and the runtime map endpoint change nothing in the master', async () => {
      const before = await masterReloads();
      const skipped = await t.api.text(
        'PUT',
        `${S}/storage/maps/hosts.map?skip_reload=true`,
        'c.example be_a\n',
      );
      expect(skipped.status).toBe(204);
      expect(skipped.headers.get('reload-id')).toBeNull();
      const rt = await t.api.postJson(`${S}/runtime/maps/hosts.map/entries`, {
        key: 'd.example',
        value: 'be_a',
      });
      expect(rt.status, rt.body).toBe(201);
      expect(await masterReloads()).toBe(before);
    });

    it('a general file write without skip_reload reloads too', async () => {
      expect((await t.api.upload('POST', `${S}/storage/general`, 'x.txt', 'x')).status).toBe(201);
      const before = await masterReloads();
      const r = await t.api.upload('PUT', `${S}/storage/general/x.txt`, 'x.txt', 'y');
      expect(r.status).toBe(202);
      expect((await t.api.waitReload(r.headers.get('reload-id')!)).status).toBe('succeeded');
      expect(await masterReloads()).toBe(before + 1);
    });
  });

  describe('a configuration the controller checked (X-Haptic-Checked)', () => {
    const push = async (body: string, query: string, claim?: string) =>
      t.api.request('POST', `${S}/configuration/raw?version=${await t.api.version()}${query}`, {
        body,
        contentType: 'text/plain',
        ...(claim ? { headers: { [CHECKED_HEADER]: claim } } : {}),
      });
    let good = '';
    beforeAll(async () => {
      good = (await t.api.get(`${S}/configuration/raw`)).body.replace(/^# _.*\n/gm, '');
    });
    afterAll(async () => {
      // whatever a case stored, the agent goes back to a configuration it checked itself
      expect((await t.api.pushConfig(`${good}# restored\n`, '&force_reload=true')).status).toBe(
        201,
      );
    });
    // HAProxy refuses this text: only a skipped check lets it through
    const bad = () => `${good}backend be_bad\n  no-such-directive here\n`;

    it('stores a copy without a reload unchecked when the claim names these very bytes', async () => {
      const r = await push(bad(), '&skip_reload=true', checkedToken(bad()));
      expect(r.status, r.body).toBe(201);
      expect((await t.api.get(`${S}/configuration/raw`)).body).toContain('no-such-directive');
    });

    it('checks a copy whose claim names other bytes, and refuses it', async () => {
      const r = await push(bad(), '&skip_reload=true', checkedToken(good));
      expect(r.status).toBe(400);
      expect(r.body).toMatch(/invalid configuration/);
    });

    it('checks a configuration that reloads now, whatever it claims', async () => {
      const before = await masterReloads();
      const r = await push(bad(), '&force_reload=true', checkedToken(bad()));
      expect(r.status).toBe(400);
      expect(r.body).toMatch(/no-such-directive/);
      expect(await masterReloads()).toBe(before);
    });
  });
});

describeForMajors(['3.0'], 'agent over HTTPS', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hapt-tls-'));
  let t: TestAgent;
  beforeAll(async () => {
    // one PEM holding the certificate and its key serves as both files
    writeFileSync(join(scratch, 'api.pem'), selfSigned('localhost', scratch));
    t = await startTestAgent({
      tls: { certFile: join(scratch, 'api.pem'), keyFile: join(scratch, 'api.pem') },
    });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('serves the API over TLS with its certificate (a client trusting it gets 200)', async () => {
    expect(t.agent.url).toMatch(/^https:/);
    const status = await new Promise<number>((resolve, reject) => {
      httpsGet(
        `${t.agent.url}/v3/health`,
        {
          ca: readFileSync(join(scratch, 'api.pem')),
          servername: 'localhost',
          checkServerIdentity: () => undefined,
          auth: `${USER}:${PASSWORD}`,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      ).on('error', reject);
    });
    expect(status).toBe(200);
  });
});
