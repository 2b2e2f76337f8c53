import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import type { ConformanceContext } from './conformance-context.js';
import {
  configServers,
  runtimeMaps,
  runtimeServers,
  runtimeSsl,
  transactions,
} from './conformance-runtime.steps.js';
import {
  failedReload,
  healthAndInfo,
  manageCrtLists,
  manageStorage,
  rawConfiguration,
  uploadStorage,
} from './conformance-storage.steps.js';
import { ConformanceRecorder } from './coverage.js';
import {
  freePort,
  selfSigned,
  startTestAgent,
  startUpstream,
  type ApiClient,
  type TestAgent,
} from './helpers.js';

// Runs on both HAProxy majors; HAPTIC_HAPROXY_BIN points at the suite's binary meanwhile.
describeForMajors(['2.6', '3.0'], 'agent API conformance', (haproxy) => {
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
    'POST   /services/haproxy/runtime/ssl_crt_lists/entries 409':
      'HAProxy accepts a second entry for the same certificate (no conflict case)',
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
      `\nagent API coverage on HAProxy ${haproxy.version.text} (path x method x documented status, spec 3.4): ${hit}/${table.length} exercised, ` +
        `${rec.count} responses validated against 3.4 and 3.0, violations: ${rec.violations.length}, ` +
        `3.0/3.4 spec conflicts (3.4 followed): ${rec.specConflicts.length}\n${lines.join('\n')}\n` +
        rec.specConflicts
          .map(
            (c) =>
              `spec conflict (3.0): ${c.method} ${c.path} ${c.status}: ${c.errors.join('; ')}\n`,
          )
          .join(''),
    );
  });

  const ctx = (): ConformanceContext => ({ api, agent: t.agent, up, pems, cfg });

  describe('agent API against the Dataplane API specification', () => {
    it('serves health, info and runtime info', () => healthAndInfo(ctx()));
    it('uploads storage files (201, 400, 409)', () => uploadStorage(ctx()));
    it('validates, pushes and reloads the raw configuration', () => rawConfiguration(ctx()));
    it('manages storage files (200, 202, 204, 400, 404)', () => manageStorage(ctx()));
    it('manages crt-lists and their entries', () => manageCrtLists(ctx()));
    it('reads and changes runtime servers (200, 201, 204, 400, 404, 409)', () =>
      runtimeServers(ctx()));
    it('reads and changes runtime maps (200, 201, 204, 400, 404, 409)', () => runtimeMaps(ctx()));
    it('manages runtime SSL certificates (200, 201, 204, 400, 409)', () => runtimeSsl(ctx()));
    it('runs transactions and configuration server changes', () => transactions(ctx()));
    it('changes configuration servers directly with a version', () => configServers(ctx()));
    it('reports a failed reload and keeps the old worker (storage deletes that break the config)', () =>
      failedReload(ctx()));

    it('answers every request within the specifications', () => {
      expect(rec.violations).toEqual([]);
      const missing = rec.table(t.agent.routes).filter((r) => !r.hit && !UNREACHABLE[r.row]);
      expect(missing.map((m) => m.row)).toEqual([]);
    });
  });
});
