import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import { runCli } from '../../../apps/controller/src/cli/cli.js';
import { freePort, PASSWORD, startTestAgent, USER, type TestAgent } from '../agent/helpers.js';

/** `haptic sync` on a `haptic render -o DIR` tree: JSON output, a no-op second run, refusals. */
describeForMajors(['3.0'], 'haptic sync', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hapt-sync-'));
  let t: TestAgent;
  let port = 0;
  const cfg = (weight: number) => `global
  log stderr format raw local0 notice
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend fe
  bind "\${POD_IP}":${port}
  http-request return status 200 content-type text/plain lf-string "%[req.hdr(host),lower,map(maps/hosts.map,none)]"
backend be
  server s1 127.0.0.1:1 weight ${weight}
`;
  const run = async (...extra: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      [
        'node',
        'haptic',
        'sync',
        '--url',
        t.agent.url,
        '--username',
        USER,
        '--password-file',
        join(dir, 'pw'),
        '--dir',
        join(dir, 'out'),
        ...extra,
      ],
      { out: (s) => out.push(s), err: (s) => err.push(s) },
    );
    return { code, out: out.join(''), err: err.join('') };
  };

  beforeAll(async () => {
    port = await freePort();
    t = await startTestAgent();
    writeFileSync(join(dir, 'pw'), `${PASSWORD}\n`);
    mkdirSync(join(dir, 'out', 'maps'), { recursive: true });
    writeFileSync(join(dir, 'out', 'maps', 'hosts.map'), 'a.example yes\n');
    writeFileSync(join(dir, 'out', 'haproxy.cfg'), cfg(10));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the tree (reload), then a weight at runtime, then nothing', async () => {
    const first = await run('-o', 'json');
    expect(first.code, first.err).toBe(0);
    const r1 = JSON.parse(first.out) as {
      reloaded: boolean;
      reloadId: string | null;
      operations: unknown[];
    };
    expect(r1.reloaded).toBe(true);
    expect(r1.reloadId).toMatch(/^\d{4}-\d{2}-\d{2}-\d+$/);
    writeFileSync(join(dir, 'out', 'haproxy.cfg'), cfg(20));
    const second = JSON.parse((await run('-o', 'json')).out) as unknown;
    expect(second).toEqual({
      reloaded: false,
      reloadId: null,
      operations: [{ kind: 'server.set', target: 'be/s1', runtime: true }],
    });
    expect(JSON.parse((await run('-o', 'json')).out)).toEqual({
      reloaded: false,
      reloadId: null,
      operations: [],
    });
    const text = await run();
    expect(text.out).toContain('nothing to do');
  });

  it('exits 1 naming what the API refused', async () => {
    writeFileSync(
      join(dir, 'out', 'haproxy.cfg'),
      `${cfg(20)}backend broken\n  server b 127.0.0.1:abc\n`,
    );
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/refused.*abc/s);
  });
});
