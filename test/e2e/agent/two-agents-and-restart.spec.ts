import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgent } from '../../../apps/agent/src/index.js';
import { describeForMajors } from '#testbed/testing';
import {
  ApiClient,
  PASSWORD,
  USER,
  freePort,
  haproxyBin,
  startTestAgent,
  workerPid,
  type TestAgent,
} from './helpers.js';

// Runs on both HAProxy majors; HAPTIC_HAPROXY_BIN points at the suite's binary meanwhile.
describeForMajors(['2.6', '3.0'], 'agent side by side, restarts, credentials', () => {
  const started: TestAgent[] = [];
  afterAll(async () => {
    for (const t of started) await t.close().catch(() => undefined);
  });

  const config = (name: string, port: number) => `global
  log stderr format raw local0 notice
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend fe
  bind "\${POD_IP}":${port}
  http-request return status 200 content-type text/plain string "${name}"
`;

  function get(host: string, port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({ host, port, path: '/', agent: false }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve(body));
      });
      req.on('error', reject);
      req.end();
    });
  }

  describe('several agents on one machine', () => {
    it('serves two different configurations from two loopback addresses on the same port', async () => {
      const port = await freePort('127.0.0.2');
      const a = await startTestAgent({ address: '127.0.0.2' });
      started.push(a);
      const b = await startTestAgent({ address: '127.0.0.3' });
      started.push(b);
      expect(a.agent.url).toMatch(/^http:\/\/127\.0\.0\.2:/);
      expect(b.agent.url).toMatch(/^http:\/\/127\.0\.0\.3:/);
      for (const [t, name] of [
        [a, 'agent-a'],
        [b, 'agent-b'],
      ] as const) {
        const r = await t.api.pushConfig(config(name, port), '&force_reload=true');
        expect(r.status, r.body).toBe(201);
      }
      expect(await get('127.0.0.2', port)).toBe('agent-a');
      expect(await get('127.0.0.3', port)).toBe('agent-b');
      expect(a.agent.masterPid).not.toBe(b.agent.masterPid);
    });
  });

  describe('optimistic locking', () => {
    it('lets exactly one of several concurrent writers with the same version win', async () => {
      const t = await startTestAgent();
      started.push(t);
      const port = await freePort();
      const v = await t.api.version();
      const answers = await Promise.all(
        [1, 2, 3, 4, 5].map((i) =>
          t.api.text(
            'POST',
            `/v3/services/haproxy/configuration/raw?version=${v}`,
            config(`writer-${i}`, port),
          ),
        ),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([202, 409, 409, 409, 409]);
      expect(
        answers.filter((a) => a.status === 409).every((a) => a.body.includes('version mismatch')),
      ).toBe(true);
      expect(await t.api.version()).toBe(v + 1);
    });
  });

  describe('restart safety', () => {
    it('adopts the running HAProxy, or restarts it on the last configuration', async () => {
      const port = await freePort();
      const first = await startTestAgent();
      // without force_reload the API queues a reload: 202 with its Reload-ID, followed to success
      const r = await first.api.pushConfig(config('kept', port));
      expect(r.status, r.body).toBe(202);
      const reloadId = r.headers.get('reload-id');
      expect(reloadId).toMatch(/^\d{4}-\d{2}-\d{2}-\d+$/); // the spec's id pattern
      expect((await first.api.waitReload(reloadId!)).status).toBe('succeeded');
      expect(await get('127.0.0.1', port)).toBe('kept');
      const version = await first.api.version();
      const master = first.agent.masterPid;
      const worker = await workerPid(first.agent);
      await first.agent.close({ keepHaproxy: true });
      expect(await get('127.0.0.1', port)).toBe('kept');

      const opts = {
        configDir: first.agent.configDir,
        port: 0,
        haproxyBin: haproxyBin(),
        credentials: { kind: 'password-file' as const, username: USER, file: first.passwordFile },
      };
      const second = await startAgent(opts);
      const later: { third?: Awaited<ReturnType<typeof startAgent>> } = {};
      // whatever happens below: stop the last HAProxy, then remove the directory
      started.push({
        ...first,
        close: async () => {
          await second.close();
          await later.third?.close();
          await first.close();
        },
      });
      const t2 = new ApiClient(second.url, USER, PASSWORD);
      expect(second.adopted).toBe(true);
      expect(second.masterPid).toBe(master);
      expect(await workerPid(second)).toBe(worker);
      expect(await t2.version()).toBe(version);
      expect((await t2.get('/v3/health')).json()).toEqual({ haproxy: 'up' });
      // the reload history (and its ids) carries over to the new agent
      const history = (await t2.get('/v3/services/haproxy/reloads')).json<
        { id: string; status: string }[]
      >();
      expect(history.length).toBeGreaterThan(0);
      expect(history.map((h) => h.id)).toContain(reloadId);
      expect(history.find((h) => h.id === reloadId)?.status).toBe('succeeded');
      expect(history.every((h) => h.status !== 'in_progress')).toBe(true);

      // HAProxy died while no agent was running: the next agent starts it on the last config
      await second.close({ keepHaproxy: false });
      const third = await startAgent(opts);
      later.third = third;
      const t3 = new ApiClient(third.url, USER, PASSWORD);
      expect(third.adopted).toBe(false);
      expect(third.masterPid).not.toBe(master);
      expect(await t3.version()).toBe(version);
      expect(await get('127.0.0.1', port)).toBe('kept');

      // HAProxy killed under a running agent: the watchdog starts it again on the last config
      const killed = third.context.haproxy.pid;
      process.kill(killed, 'SIGKILL');
      let back = false;
      for (let i = 0; i < 200 && !back; i++) {
        await new Promise((r) => setTimeout(r, 50));
        const pid = third.context.haproxy.pid;
        back = pid !== killed && (await third.context.haproxy.isUp());
      }
      expect(back).toBe(true);
      expect((await t3.get('/v3/health')).json()).toEqual({ haproxy: 'up' });
      expect(await get('127.0.0.1', port)).toBe('kept');
    });
  });

  describe('credentials', () => {
    it('re-reads the password file when it changes, without a restart', async () => {
      const t = await startTestAgent();
      started.push(t);
      expect((await t.api.get('/v3/health')).status).toBe(200);
      writeFileSync(t.passwordFile, 'rotated-password-2\n');
      expect((await t.api.get('/v3/health')).status).toBe(401);
      expect(
        (await t.api.withCredentials(USER, 'rotated-password-2').get('/v3/health')).status,
      ).toBe(200);
    });

    it('accepts a userlist file', async () => {
      const t = await startTestAgent();
      started.push(t);
      const file = join(t.dir, 'users.cfg');
      writeFileSync(file, 'userlist controller\n  user ops insecure-password s3cret\n');
      const agent = await startAgent({
        configDir: join(t.dir, 'etc2'),
        port: 0,
        haproxyBin: haproxyBin(),
        credentials: { kind: 'userlist', file },
      });
      try {
        const api = new ApiClient(agent.url, 'ops', 's3cret');
        const health = await api.request('GET', '/v3/health', {
          headers: { 'user-agent': 'haptic-test/1' },
        });
        expect(health.status).toBe(200);
        expect((await api.withCredentials('ops', 'nope').get('/v3/health')).status).toBe(401);
        // the request log records who called what
        const log = await api.get('/haptic/requests');
        expect(log.json<{ user?: string; path: string; status: number }[]>()).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              user: 'ops',
              path: '/v3/health',
              status: 200,
              client: 'haptic-test/1',
            }),
          ]),
        );
      } finally {
        await agent.close();
      }
    });
  });
});
