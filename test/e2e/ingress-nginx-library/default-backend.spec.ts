import { rm } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { nginxIngress } from './nginx-ingress.js';

// default-backend of the ingress-nginx library, judged by real requests through a real HAProxy
// running the library's render: the named Service answers while the Ingress's Service has no
// endpoint (ingress-nginx's "used when no endpoints are available for the service"), and only then.

const NS = 'apps';

/** A backend answering 200 with its name in X-Backend. */
async function startBackend(name: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'x-backend': name, 'content-type': 'text/plain' });
      res.end(name);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

/** One GET to HAProxy on 127.0.0.1 (5 s timeout): the status and the headers. */
function get(
  port: number,
  host: string,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${host} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const ingress = (name: string, host: string, annotations: object, service = 'echo', port = 8080) =>
  nginxIngress(name, annotations, { namespace: NS, host, service, port });

/** A Service `name` with this cluster IP and port, its EndpointSlice one 127.0.0.1 at `endpointPort`. */
function service(name: string, clusterIP: string, port: number, endpointPort: number): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS },
      spec: { clusterIP, ports: [{ name: 'http', port, targetPort: endpointPort }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-1`,
        namespace: NS,
        labels: { 'kubernetes.io/service-name': name },
      },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: endpointPort }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
  ];
}

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
    const empty = service('empty', 'None', 80, 80).slice(0, 1); // a Service without endpoints
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'k8s.io/ingress-nginx' },
      },
      ...service('main', 'None', 80, main.port),
      ...service('fallback', 'None', 80, fallback.port),
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
