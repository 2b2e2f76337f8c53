import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { describeForMajors, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tempBase } from '../ingress-library/library.js';
import { get, renderNginx, service, startBackend } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// affinity-canary-behavior as ingress-nginx's balancer applies it (route_to_alternative_balancer):
// a client whose affinity cookie names the mainline stays there whatever the canary rules say;
// with sticky (the default) one whose cookie names the canary stays on the canary, even at
// weight 0; with legacy the canary has no affinity. Real requests through a real HAProxy.

const NS = 'apps';
const COOKIE = 'route';

describeForMajors(['2.6', '3.0'], 'ingress-nginx affinity-canary-behavior', (install) => {
  let base: string;
  let servers: Server[] = [];
  let haproxy: HaproxyUnderTest;
  let http: number;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    const main = await startBackend('main');
    const canary = await startBackend('canary');
    servers = [main.server, canary.server];
    const affinity = { affinity: 'cookie', 'session-cookie-name': COOKIE };
    const pair = (host: string, canaryRules: Record<string, string>) => [
      nginxIngress(`${host}-main`, affinity, { namespace: NS, host, service: 'main', port: 80 }),
      nginxIngress(
        `${host}-canary`,
        { canary: 'true', ...canaryRules },
        { namespace: NS, host, service: 'canary', port: 80 },
      ),
    ];
    const objects = [
      ...service(NS, 'main', '10.96.0.30', 80, main.port),
      ...service(NS, 'canary', '10.96.0.31', 80, canary.port),
      ...pair('sticky.bar.com', { 'canary-weight': '0' }),
      ...pair('legacy.bar.com', { 'canary-weight': '0', 'affinity-canary-behavior': 'legacy' }),
      ...pair('all.bar.com', { 'canary-weight': '100' }),
    ];
    const rendered = await renderNginx(base, objects);
    http = rendered.http;
    haproxy = await startHaproxy({ bin: install.bin, config: () => rendered.cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    if (base) await rm(base, { recursive: true, force: true });
  });

  const backendOf = async (host: string, cookie?: string) => {
    const r = await get(http, host, cookie === undefined ? {} : { Cookie: `${COOKIE}=${cookie}` });
    return { backend: r.headers['x-backend'], cookie: r.headers['set-cookie']?.[0] ?? '' };
  };

  it("sticky: the canary's cookie keeps a client on the canary, even at weight 0", async () => {
    expect((await backendOf('sticky.bar.com')).backend).toBe('main');
    expect((await backendOf('sticky.bar.com', 'canary-srv1')).backend).toBe('canary');
  });

  it("a canary server sets its cookie as a canary's; the mainline's cookie keeps a client on the mainline at weight 100", async () => {
    const first = await backendOf('all.bar.com');
    expect(first.backend).toBe('canary');
    expect(first.cookie).toMatch(/^route=canary-srv\d+;/);
    expect((await backendOf('all.bar.com', 'srv1')).backend).toBe('main');
  });

  it('legacy: the canary has no affinity, its cookie is not read', async () => {
    expect((await backendOf('legacy.bar.com', 'canary-srv1')).backend).toBe('main');
  });
});
