import { rm } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { describeForMajors, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, tempBase } from '../ingress-library/library.js';
import { renderNginx, service } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// custom-http-errors as ingress-nginx's template gives it (the CUSTOM_ERRORS locations:
// `GET /` to the default backend with X-Code, X-Format, X-Original-URI, X-Namespace,
// X-Ingress-Name, X-Service-Name, X-Service-Port, X-Request-ID): real requests through a real
// HAProxy running the library's render and its vetted error-page Lua action.

const NS = 'apps';

interface Started {
  readonly port: number;
  readonly server: Server;
}

async function serve(
  answer: (path: string, h: IncomingHttpHeaders) => [number, string, string],
): Promise<Started> {
  const server = createServer((req, res) => {
    const [status, type, body] = answer(req.url ?? '/', req.headers);
    res.writeHead(status, { 'content-type': type, 'x-from': 'server' });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

/**
 * The Ingress's backend (/status/NNN answers NNN, the rest 200) and the default backend
 * (ingress-nginx's custom error pages answer with X-Code's status and report what they got).
 */
async function startServers(): Promise<[Started, Started]> {
  const upstream = await serve((path) => {
    const code = /^\/status\/(\d{3})/.exec(path)?.[1];
    return [code ? Number(code) : 200, 'text/plain', `upstream ${path}`];
  });
  const errors = await serve((path, h) => [
    Number(h['x-code']) || 404,
    'application/json',
    JSON.stringify({ path, headers: h }),
  ]);
  return [upstream, errors];
}

/** A TCP server that closes every connection without answering. */
async function startGarbage(): Promise<Started> {
  const server = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server: server as unknown as Server };
}

const closeAll = (servers: readonly (Started | undefined)[]) =>
  Promise.all(servers.map((s) => new Promise((r) => (s ? s.server.close(r) : r(undefined)))));

interface Reply {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

function call(port: number, host: string, path: string, headers: object = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host, ...headers } };
    const req = request({ ...options, timeout: 15_000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString('utf8')));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }),
      );
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${host}${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

describeForMajors(['2.6', '3.0'], 'ingress-nginx custom-http-errors', (install) => {
  let base: string;
  let upstream: Started;
  let errors: Started;
  let garbage: Started;
  let haproxy: HaproxyUnderTest;
  let http: number;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    [upstream, errors] = await startServers();
    garbage = await startGarbage();
    const objects = [
      ...echoBackend(NS, upstream.port),
      ...service(NS, 'errors', '10.96.0.20', 8081, errors.port),
      nginxIngress(
        'pages',
        { 'custom-http-errors': '404,503', 'default-backend': 'errors', 'rewrite-target': '/$1' },
        { namespace: NS, host: 'pages.bar.com', path: '/app/(.*)' },
      ),
      nginxIngress(
        'plain',
        { 'custom-http-errors': '503' },
        { namespace: NS, host: 'plain.bar.com' },
      ),
      // a default backend that closes the connection without answering
      ...service(NS, 'garbage', '10.96.0.22', 8083, garbage.port),
      nginxIngress(
        'garbled',
        { 'custom-http-errors': '404', 'default-backend': 'garbage' },
        { namespace: NS, host: 'garbled.bar.com' },
      ),
    ];
    const rendered = await renderNginx(base, objects);
    http = rendered.http;
    haproxy = await startHaproxy({ bin: install.bin, config: () => rendered.cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await closeAll([upstream, errors, garbage]);
    if (base) await rm(base, { recursive: true, force: true });
  });

  it("a listed status gets the default backend's answer to ingress-nginx's error request", async () => {
    const r = await call(http, 'pages.bar.com', '/app/status/503?x=1', {
      Accept: 'application/json',
      'X-Request-ID': 'req-1',
    });
    expect([r.status, r.type]).toEqual([503, 'application/json']);
    const seen = JSON.parse(r.body) as { path: string; headers: Record<string, string> };
    expect(seen.path).toBe('/');
    expect(seen.headers).toMatchObject({
      host: 'pages.bar.com',
      'x-code': '503',
      'x-format': 'application/json',
      // the request as it came, before rewrite-target
      'x-original-uri': '/app/status/503?x=1',
      'x-namespace': 'apps',
      'x-ingress-name': 'pages',
      'x-service-name': 'echo',
      'x-service-port': '8080',
      'x-request-id': 'req-1',
      'x-forwarded-for': '127.0.0.1',
    });
  });

  it('an unlisted status and a success pass as the backend gave them', async () => {
    const teapot = await call(http, 'pages.bar.com', '/app/status/418');
    expect([teapot.status, teapot.body]).toEqual([418, 'upstream /status/418']);
    const ok = await call(http, 'pages.bar.com', '/app/x');
    expect([ok.status, ok.body]).toEqual([200, 'upstream /x']);
  });

  it("without a default backend a listed status becomes the library's 404, as ingress-nginx's own default backend", async () => {
    const r = await call(http, 'plain.bar.com', '/status/503');
    expect(r.status).toBe(404);
    expect(r.body).not.toContain('upstream');
    expect((await call(http, 'plain.bar.com', '/status/500')).status).toBe(500);
  });

  it('a default backend closing without an answer: 502 (as nginx), never an invalid status line', async () => {
    const r = await call(http, 'garbled.bar.com', '/status/404');
    expect(r.status).toBe(502);
    expect(r.body).not.toContain('upstream');
  });

  it("the default backend unreachable: 503 (HAProxy's httpclient; nginx answers 502), never the error page", async () => {
    await new Promise((r) => errors.server.close(r));
    const r = await call(http, 'pages.bar.com', '/app/status/404');
    expect(r.status).toBe(503);
    expect(r.body).not.toContain('x-code');
  });
});

describeForMajors(
  ['2.6', '3.0'],
  "ingress-nginx's controller-wide default backend and custom-http-errors",
  (install) => {
    let base: string;
    let upstream: Started;
    let errors: Started;
    let haproxy: HaproxyUnderTest;
    let http: number;

    beforeAll(async () => {
      process.env['POD_IP'] = '127.0.0.1';
      base = await tempBase();
      [upstream, errors] = await startServers();
      const objects = [
        ...echoBackend(NS, upstream.port),
        ...service('shared', 'errors', '10.96.0.21', 8082, errors.port),
        nginxIngress('plain', {}, { namespace: NS, host: 'plain.bar.com' }),
        nginxIngress('off', { 'custom-http-errors': '' }, { namespace: NS, host: 'off.bar.com' }),
      ];
      const settings = { default_backend_service: 'shared/errors', custom_http_errors: '503' };
      const rendered = await renderNginx(base, objects, settings);
      http = rendered.http;
      haproxy = await startHaproxy({ bin: install.bin, config: () => rendered.cfg });
    }, 120_000);

    afterAll(async () => {
      await haproxy?.stop();
      await closeAll([upstream, errors]);
      if (base) await rm(base, { recursive: true, force: true });
    });

    it("an Ingress without the annotation: the library's codes are asked of default_backend_service", async () => {
      const r = await call(http, 'plain.bar.com', '/status/503?y=2');
      expect([r.status, r.type]).toEqual([503, 'application/json']);
      const seen = JSON.parse(r.body) as { path: string; headers: Record<string, string> };
      expect(seen.path).toBe('/');
      expect(seen.headers).toMatchObject({
        'x-code': '503',
        'x-original-uri': '/status/503?y=2',
        'x-namespace': 'apps',
        // a shared Service backend: no one Ingress to name (a documented deviation)
        'x-ingress-name': '',
        'x-service-name': 'echo',
        'x-service-port': '8080',
      });
      const teapot = await call(http, 'plain.bar.com', '/status/404');
      expect([teapot.status, teapot.body]).toEqual([404, 'upstream /status/404']);
    });

    it('an empty annotation turns the codes off for its Ingress', async () => {
      const r = await call(http, 'off.bar.com', '/status/503');
      expect([r.status, r.body]).toEqual([503, 'upstream /status/503']);
    });

    it('a request no Ingress matches goes to default_backend_service, as it came', async () => {
      const r = await call(http, 'nowhere.bar.com', '/some/where?z=1');
      expect(r.status).toBe(404);
      const seen = JSON.parse(r.body) as { path: string; headers: Record<string, string> };
      expect([seen.path, seen.headers['host']]).toEqual(['/some/where?z=1', 'nowhere.bar.com']);
    });
  },
);
