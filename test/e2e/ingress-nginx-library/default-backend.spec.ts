import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { get, service, startBackend } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// default-backend of the ingress-nginx library, judged by real requests through a real HAProxy
// running the library's render: the named Service answers while the Ingress's Service has no
// endpoint (ingress-nginx's "used when no endpoints are available for the service"), and only then.

const NS = 'apps';

const ingress = (name: string, host: string, annotations: object, service = 'echo', port = 8080) =>
  nginxIngress(name, annotations, { namespace: NS, host, service, port });

describeForMajors(['2.6', '3.0'], 'ingress-nginx default-backend through HAProxy', (install) => {
  let base: string;
  let main: { port: number; server: Server };
  let fallback: { port: number; server: Server };
  let haproxy: HaproxyUnderTest;
  let http: number;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    main = await startBackend('main');
    fallback = await startBackend('fallback');
    http = await freePort();
    const extra = { http_port: http, https_port: await freePort(), stats_port: await freePort() };
    const empty = service(NS, 'empty', 'None', 80, 80).slice(0, 1); // a Service without endpoints
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'k8s.io/ingress-nginx' },
      },
      ...service(NS, 'main', 'None', 80, main.port),
      ...service(NS, 'fallback', 'None', 80, fallback.port),
      ...empty,
      ingress('dead', 'dead.bar.com', { 'default-backend': 'fallback' }, 'empty', 80),
      ingress('alive', 'alive.bar.com', { 'default-backend': 'fallback' }, 'main', 80),
      ingress('plain', 'plain.bar.com', { 'proxy-body-size': '1m' }, 'empty', 80),
    ];
    const cfg = await renderLibraryConfig(base, 'ingress-nginx', extra, objects);
    haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    for (const b of [main, fallback]) await new Promise((r) => b?.server.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('the default backend answers for an Ingress whose Service has no endpoint', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await get(http, 'dead.bar.com');
      expect([r.status, r.headers['x-backend']]).toEqual([200, 'fallback']);
    }
  });

  it("the Ingress's own Service answers while it has an endpoint", async () => {
    const r = await get(http, 'alive.bar.com');
    expect([r.status, r.headers['x-backend']]).toEqual([200, 'main']);
  });

  it('without default-backend, a Service without endpoints answers 503', async () => {
    const r = await get(http, 'plain.bar.com');
    expect(r.status).toBe(503);
  });
});
