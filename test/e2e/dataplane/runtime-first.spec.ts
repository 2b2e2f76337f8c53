import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataplaneClient, syncPod } from '#dataplane';
import { adminState, parseServersState } from '#haproxy-config';
import { describeForMajors } from '#testbed/testing';
import {
  freePort,
  PASSWORD,
  selfSigned,
  startTestAgent,
  startUpstream,
  USER,
  type TestAgent,
} from '../agent/helpers.js';
import {
  cnOf,
  httpGet,
  INITIAL,
  render,
  servedCn,
  type DesiredState,
  type PodEnv,
} from './runtime-first.fixture.js';
import { PAIRS } from './runtime-first.pairs.js';

interface Pod {
  readonly api: '3.0' | '3.4';
  readonly address: string;
  readonly t: TestAgent;
  readonly env: PodEnv;
  readonly client: DataplaneClient;
}

/**
 * The runtime-first engine against two agents driving real HAProxy (Dataplane API 3.4 and 3.0),
 * over 42 before/after pairs. Each pair asserts, on each pod: reload or not, counted from
 * HAProxy's master; the running state read through HAProxy's runtime socket; a second sync is a
 * no-op; real requests are served as the new state says.
 */
describeForMajors(['2.6', '3.0'], 'runtime-first sync', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'hapt-rf-'));
  const pems: Record<string, string> = {};
  let ups: Awaited<ReturnType<typeof startUpstream>>[] = [];
  const names = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'a2'];
  let upstreams: string[] = [];
  const pods: Pod[] = [];
  let state: DesiredState = INITIAL;

  const masterReloads = async (p: Pod) =>
    (await p.t.agent.context.haproxy.showProc()).master?.reloads ?? -1;
  const admin = (p: Pod, cmd: string) => p.t.agent.context.haproxy.admin.send(cmd);

  beforeAll(async () => {
    for (const label of [
      'default.example',
      'one.example',
      'one.example.v2',
      'two.example',
      'two.example.v2',
      'three.example',
      'three.example.v2',
    ])
      pems[label] = selfSigned(cnOf(label), scratch);
    ups = await Promise.all(names.slice(0, 6).map((n) => startUpstream(n)));
    // upstream 6: upstream 0's port on another address (a pure address change)
    const a2 = createServer((req, res) => res.end(`a2 ${req.url ?? ''}`));
    await new Promise<void>((r) => a2.listen(ups[0]!.port, '127.0.0.2', r));
    ups.push({
      port: ups[0]!.port,
      server: a2,
      close: () => new Promise<void>((r) => (a2.closeAllConnections(), a2.close(() => r()))),
    });
    upstreams = ups.map((u, i) => `${i === 6 ? '127.0.0.2' : '127.0.0.1'}:${u.port}`);
    // free on every address (0.0.0.0): both pods bind them on their own address
    const [httpPort, httpsPort, http2Port] = [
      await freePort('0.0.0.0'),
      await freePort('0.0.0.0'),
      await freePort('0.0.0.0'),
    ];
    for (const [api, address] of [
      ['3.4', '127.0.0.11'],
      ['3.0', '127.0.0.12'],
    ] as const) {
      const t = await startTestAgent({ apiVersion: api, address, podIp: address });
      const env: PodEnv = {
        dir: t.agent.context.paths.dir,
        httpPort,
        httpsPort,
        http2Port,
        upstreams,
        pems,
      };
      const client = new DataplaneClient({ url: t.agent.url, username: USER, password: PASSWORD });
      pods.push({ api, address, t, env, client });
    }
    for (const p of pods) {
      const r = await syncPod(p.client, render(state, p.env));
      expect(r.reloaded).toBe(true);
    }
  });

  afterAll(async () => {
    for (const p of pods) await p.t.close();
    await Promise.all(ups.map((u) => u.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  async function expectRunning(p: Pod, s: DesiredState): Promise<void> {
    const rows = parseServersState(await admin(p, 'show servers state'));
    for (const [backend, servers] of [
      ['be_app', s.app],
      ['be_slots', s.slots],
    ] as const) {
      const live = rows.filter((r) => r.be_name === backend);
      expect(live.map((r) => r.srv_name).sort()).toEqual(servers.map((x) => x.name).sort());
      for (const x of servers) {
        const r = live.find((row) => row.srv_name === x.name)!;
        const maint = adminState(String(Number(r.srv_admin_state) & ~0x04)) === 'maint';
        expect({ server: x.name, maint }).toEqual({ server: x.name, maint: x.maint });
        if (x.maint) continue;
        expect(`${r.srv_addr}:${r.srv_port}`).toBe(upstreams[x.up]);
        expect(Number(r.srv_uweight)).toBe(x.weight);
      }
    }
    const mapText = await admin(p, `show map ${p.env.dir}/maps/hosts.map`);
    const entries = Object.fromEntries(
      mapText
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((w) => w.length === 3)
        .map((w) => [w[1], w[2]]),
    );
    expect(entries).toEqual(s.hosts);
    const certList = await admin(p, 'show ssl cert');
    for (const [name, label] of Object.entries(s.certs)) {
      const detail = await admin(p, `show ssl cert ${p.env.dir}/ssl/${name}`);
      expect(detail).toContain(`CN=${cnOf(label)}`);
      expect(detail).toMatch(/Serial: [0-9A-F]+/);
      const serial = /Serial: ([0-9A-F]+)/.exec(detail)?.[1];
      const want = new X509Certificate(pems[label]!).serialNumber;
      expect(serial).toBe(want);
    }
    for (const gone of ['one.pem', 'two.pem', 'three.pem'].filter((n) => !(n in s.certs)))
      expect(certList).not.toContain(`${p.env.dir}/ssl/${gone}`);
  }

  async function expectServed(p: Pod, s: DesiredState): Promise<void> {
    for (const [host, backend] of Object.entries(s.hosts)) {
      const pool =
        backend === 'be_new'
          ? ['u5']
          : (backend === 'be_app' ? s.app : s.slots)
              .filter((x) => !x.maint)
              .map((x) => names[x.up]!);
      const r = await httpGet(p.address, p.env.httpPort, host);
      if (pool.length === 0) expect(r.status).toBe(503);
      else expect(pool).toContain(r.body);
    }
    for (const label of Object.values(s.certs))
      expect(await servedCn(p.address, p.env.httpsPort, cnOf(label))).toBe(cnOf(label));
    if (s.acl)
      expect((await httpGet(p.address, p.env.httpPort, 'a.example', '/blocked')).status).toBe(403);
  }

  describe('42 before/after pairs on two pods (API 3.4 and 3.0)', () => {
    it.each(PAIRS.map((pair, i) => [`${i + 1}. ${pair.name}`, pair] as const))(
      '%s',
      async (_name, pair) => {
        const next = pair.change(state);
        // settled, not all: one pod's failure must not leave the other mid-deployment
        const settled = await Promise.allSettled(
          pods.map(async (p) => {
            const expectReload =
              pair.structural === true || (pair.cert === true && p.api === '3.0');
            const before = await masterReloads(p);
            const r = await syncPod(p.client, render(next, p.env));
            expect(
              r.reloaded,
              `${p.api}: ${JSON.stringify(r.reloadReasons)} ${JSON.stringify(r.operations)}`,
            ).toBe(expectReload);
            expect(r.operations.length).toBeGreaterThan(0);
            expect(await masterReloads(p)).toBe(before + (expectReload ? 1 : 0));
            const again = await syncPod(p.client, render(next, p.env));
            expect({ operations: again.operations, reloaded: again.reloaded }).toEqual({
              operations: [],
              reloaded: false,
            });
            await expectRunning(p, next);
            await expectServed(p, next);
          }),
        );
        state = next;
        const failed = settled.find((x) => x.status === 'rejected');
        if (failed) throw failed.reason;
      },
      120_000,
    );
  });
});
