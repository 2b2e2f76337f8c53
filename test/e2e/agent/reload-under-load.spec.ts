import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { LoadGenerator } from './load.js';

// Runs on both HAProxy majors; HAPTIC_HAPROXY_BIN points at the suite's binary meanwhile.
describeForMajors(['2.6', '3.0'], 'agent reloads under load', (haproxy) => {
  const RELOADS = 50;
  let t: TestAgent;
  let ups: Awaited<ReturnType<typeof startUpstream>>[] = [];
  let httpPort = 0;
  let tlsPort = 0;
  const scratch = mkdtempSync(join(tmpdir(), 'hapt-load-'));

  function config(generation: number): string {
    return `global
  log stderr format raw local0 notice
  hard-stop-after 20s
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
  timeout http-keep-alive 10s
  # keep idle keep-alive connections of an old worker until their next request is answered
  # (with "Connection: close"), instead of closing them under a client about to reuse them
  option idle-close-on-response
frontend fe_http
  bind "\${POD_IP}":${httpPort}
  bind "\${POD_IP}":${tlsPort} ssl crt ssl/site.pem
  http-response set-header X-Generation ${generation}
  default_backend be_app
backend be_app
  balance roundrobin
${ups.map((u, i) => `  server s${i} 127.0.0.1:${u.port}`).join('\n')}
`;
  }

  beforeAll(async () => {
    ups = await Promise.all([startUpstream('a'), startUpstream('b')]);
    httpPort = await freePort();
    tlsPort = await freePort();
    t = await startTestAgent();
    const up = await t.api.upload(
      'POST',
      '/v3/services/haproxy/storage/ssl_certificates?skip_reload=true',
      'site.pem',
      selfSigned('site.example', scratch),
    );
    expect(up.status).toBe(201);
    const first = await t.api.pushConfig(config(0), '&force_reload=true');
    expect(first.status, first.body).toBe(201);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all(ups.map((u) => u.close()));
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('reloads under load', () => {
    it(`performs ${RELOADS} reloads, each a new configuration and worker, with 0 failed requests`, async () => {
      const load = new LoadGenerator('127.0.0.1', httpPort, tlsPort);
      load.start(3);
      await load.flowing(); // every kind answered before the first reload
      const pids = new Set<number>([await workerPid(t.agent)]);
      const started = Date.now();
      const durations: number[] = [];
      for (let i = 1; i <= RELOADS; i++) {
        const t0 = Date.now();
        const res = await t.api.pushConfig(config(i));
        expect(res.status, res.body).toBe(202);
        const reload = await t.api.waitReload(res.headers.get('reload-id')!);
        expect(reload.status, reload.response).toBe('succeeded');
        durations.push(Date.now() - t0);
        const pid = await workerPid(t.agent);
        expect(pids.has(pid), `reload ${i} left worker ${pid}`).toBe(false);
        pids.add(pid);
      }
      const elapsed = Date.now() - started;
      await load.flowing(); // and every kind answered after the last reload
      const result = await load.stop();
      durations.sort((a, b) => a - b);
      process.stdout.write(
        `\nHAProxy ${haproxy.version.text}: ${RELOADS} reloads in ${elapsed} ms (per reload p50 ${durations[Math.floor(RELOADS / 2)]} ms, ` +
          `max ${durations[RELOADS - 1]} ms); requests ok ${result.ok} ` +
          `(keep-alive ${result.byKind['keep-alive']}, new-connection ${result.byKind['new-connection']}, tls ${result.byKind.tls}), ` +
          `failed ${result.failed}${result.errors.length ? `: ${result.errors.join(' | ')}` : ''}\n`,
      );
      expect(pids.size).toBe(RELOADS + 1);
      expect(result.ok).toBeGreaterThan(RELOADS * 10);
      expect(Math.min(...Object.values(result.byKind))).toBeGreaterThan(0);
      expect(result.failed, result.errors.join('\n')).toBe(0);
    }, 300_000); // 50 reloads take ~100 s on a loaded 2-core machine
  });
});
