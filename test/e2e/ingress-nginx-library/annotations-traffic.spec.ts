import { rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';
import { echoBackend, renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { nginxIngress } from './nginx-ingress.js';

// ingress-nginx annotations honoured by the ingress-nginx library, judged as ingress-nginx's own
// e2e tests judge them: real requests through a real HAProxy running the library's render,
// status and headers from the client's side, path and headers from the backend's side.

const NS = 'apps';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** An echo backend answering 200 with what it saw (method, path with query, headers). */
async function startEcho(): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, path: req.url, headers: req.headers }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** What the echo backend saw (200 answers only). */
  readonly seen?: { method: string; path: string; headers: Record<string, string> };
}

interface Call {
  readonly port: number;
  readonly host: string;
  readonly path: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly ca?: string;
}

/** One request to HAProxy on 127.0.0.1 (5 s timeout). */
function call(c: Call): Promise<Reply> {
  const options = {
    host: '127.0.0.1',
    port: c.port,
    path: c.path,
    method: c.method ?? 'GET',
    headers: { host: c.host, ...c.headers },
    timeout: 5_000,
    ...(c.ca ? { servername: c.host, ca: c.ca } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (c.ca ? httpsRequest : request)(options, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const ok = status === 200 && res.headers['content-type'] === 'application/json';
        resolve({ status, headers: res.headers, ...(ok ? { seen: JSON.parse(text) } : {}) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${c.host}${c.path} timed out`)));
    req.on('error', reject);
    req.end(c.body);
  });
}

const ingress = (name: string, host: string, annotations: object, spec: object = {}) =>
  nginxIngress(name, annotations, { namespace: NS, host, spec });
const backend = { service: { name: 'echo', port: { number: 8080 } } };
// crypt(3) hashes: bcrypt of "s3cret", SHA-512 of "bar"; apr1 of "bar" (HAProxy cannot check it)
const HTPASSWD = [
  'foo:$2y$05$abcdefghijklmnopqrstuuLK7U1u6pVRmL7L1BBM2aS35PSZnDXlK',
  'sha:$6$saltsalt$13ZWs86TCGWlKvPnoiZ5uGRk0I6FWQWsoBjy.0NUb9IUt/pnMWcsVBWPeXm2zbrm1/3NvnFsJFn2dIliX8SAJ/',
  'old:$apr1$abcdefgh$bGLO42WqKpmLoPH9uGWTg1',
].join('\n');
const basic = (user: string, password: string) => ({
  authorization: `Basic ${b64(`${user}:${password}`)}`,
});

describeForMajors(['2.6', '3.0'], 'ingress-nginx annotations through HAProxy', (install) => {
  let base: string;
  let echo: { port: number; server: Server };
  let haproxy: HaproxyUnderTest;
  let http: number;
  let https: number;
  let ca: string;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    echo = await startEcho();
    const tls = makeCertificate('foo.bar.com');
    ca = tls.cert;
    [http, https] = [await freePort(), await freePort()];
    const stats = await freePort();
    const extra = { http_port: http, https_port: https, stats_port: stats };
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'k8s.io/ingress-nginx' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'tls', namespace: NS },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
      },
      ...echoBackend(NS, echo.port),
      ingress(
        'secure',
        'foo.bar.com',
        {},
        { tls: [{ hosts: ['foo.bar.com'], secretName: 'tls' }] },
      ),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'basic-auth', namespace: NS },
        type: 'Opaque',
        data: { auth: b64(HTPASSWD) },
      },
      ingress('auth', 'auth.bar.com', {
        'auth-type': 'basic',
        'auth-secret': 'basic-auth',
        'auth-realm': 'Authentication Required - foo',
      }),
      ingress(
        'auth-public',
        'auth.bar.com',
        {},
        {
          rules: [
            {
              host: 'auth.bar.com',
              http: { paths: [{ path: '/public', pathType: 'Prefix', backend }] },
            },
          ],
        },
      ),
      ingress('redirect', 'redirect.bar.com', {
        'permanent-redirect': 'https://www.example.org/new?x=1',
      }),
      ingress('approot', 'approot.bar.com', { 'app-root': '/foo' }),
      ingress('cors', 'cors.bar.com', { 'enable-cors': 'true' }),
      ingress('cors-list', 'corslist.bar.com', {
        'enable-cors': 'true',
        'cors-allow-origin': 'https://origin.bar.com, https://*.wild.com:8443',
      }),
      ingress('body', 'body.bar.com', { 'proxy-body-size': '10' }),
      ingress('allow', 'allow.bar.com', { 'allowlist-source-range': '10.0.0.0/8' }),
      ingress('allow-local', 'local.bar.com', { 'whitelist-source-range': '127.0.0.1/32' }),
      ingress(
        'rewrite',
        'rewrite.bar.com',
        { 'rewrite-target': '/$2', 'x-forwarded-prefix': '/something' },
        {
          rules: [
            {
              host: 'rewrite.bar.com',
              http: {
                paths: [
                  { path: '/something(/|$)(.*)', pathType: 'ImplementationSpecific', backend },
                ],
              },
            },
          ],
        },
      ),
    ];
    const cfg = await renderLibraryConfig(base, 'ingress-nginx', extra, objects);
    haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await new Promise((r) => echo?.server.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('redirects plain HTTP for a TLS host with 308, without the trailing slash; serves HTTPS with HSTS', async () => {
    const root = await call({ port: http, host: 'foo.bar.com', path: '/' });
    expect([root.status, root.headers['location']]).toEqual([308, 'https://foo.bar.com']);
    const deep = await call({ port: http, host: 'foo.bar.com', path: '/a/b/?q=1' });
    expect(deep.headers['location']).toBe('https://foo.bar.com/a/b/?q=1');
    const slash = await call({ port: http, host: 'foo.bar.com', path: '/a/b/' });
    expect(slash.headers['location']).toBe('https://foo.bar.com/a/b');
    const secure = await call({ port: https, host: 'foo.bar.com', path: '/x', ca });
    expect(secure.status).toBe(200);
    expect(secure.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(secure.seen?.headers['x-forwarded-proto']).toBe('https');
  });

  it('answers permanent-redirect with 301 and the exact URL, app-root with 302 for / only', async () => {
    const r = await call({ port: http, host: 'redirect.bar.com', path: '/old' });
    expect([r.status, r.headers['location']]).toEqual([301, 'https://www.example.org/new?x=1']);
    const a = await call({ port: http, host: 'approot.bar.com', path: '/' });
    expect([a.status, a.headers['location']]).toEqual([302, 'http://approot.bar.com/foo']);
    expect((await call({ port: http, host: 'approot.bar.com', path: '/foo' })).status).toBe(200);
  });

  it('answers a CORS preflight 204 with the Access-Control headers and adds them to answers', async () => {
    const pre = await call({
      port: http,
      host: 'cors.bar.com',
      path: '/',
      method: 'OPTIONS',
      headers: { origin: 'https://any.example.com', 'access-control-request-method': 'PUT' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'GET, PUT, POST, DELETE, PATCH, OPTIONS',
      'access-control-max-age': '1728000',
    });
    expect(pre.seen).toBeUndefined(); // answered by HAProxy, not the backend
    const get = await call({ port: http, host: 'cors.bar.com', path: '/' });
    expect([get.status, get.headers['access-control-allow-origin']]).toEqual([200, '*']);
  });

  it('echoes an allowed Origin of a list (one-label wildcard, port) and no other', async () => {
    const origin = (o: string) =>
      call({ port: http, host: 'corslist.bar.com', path: '/', headers: { origin: o } });
    const allowed = await origin('https://origin.bar.com');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://origin.bar.com');
    const wild = await origin('https://a.wild.com:8443');
    expect(wild.headers['access-control-allow-origin']).toBe('https://a.wild.com:8443');
    for (const bad of ['https://evil.com', 'https://a.b.wild.com:8443', 'https://a.wild.com'])
      expect((await origin(bad)).headers['access-control-allow-origin'], bad).toBeUndefined();
  });

  it('answers 413 to a body above proxy-body-size and passes a smaller one', async () => {
    const send = (body: string) =>
      call({ port: http, host: 'body.bar.com', path: '/', method: 'POST', body });
    expect((await send('x'.repeat(11))).status).toBe(413);
    expect((await send('x'.repeat(10))).status).toBe(200);
  });

  it('answers 403 to a client outside the allowlist and serves one inside', async () => {
    expect((await call({ port: http, host: 'allow.bar.com', path: '/' })).status).toBe(403);
    expect((await call({ port: http, host: 'local.bar.com', path: '/' })).status).toBe(200);
  });

  it('rewrites the path with the capture group, keeping the query; the prefix header reaches the backend', async () => {
    const seen = async (path: string) =>
      (await call({ port: http, host: 'rewrite.bar.com', path })).seen;
    expect((await seen('/something/foo/bar?x=1'))?.path).toBe('/foo/bar?x=1');
    expect((await seen('/something'))?.path).toBe('/');
    expect((await seen('/SOMETHING/up'))?.path).toBe('/up'); // case-insensitive, as nginx's ~*
    expect((await seen('/something/x'))?.headers['x-forwarded-prefix']).toBe('/something');
    expect((await call({ port: http, host: 'rewrite.bar.com', path: '/other' })).status).toBe(404);
  });

  it("asks for basic auth on that Ingress's paths only: 200 with right credentials, 401 with the realm otherwise", async () => {
    const auth = (path: string, headers: Record<string, string> = {}) =>
      call({ port: http, host: 'auth.bar.com', path, headers });
    const none = await auth('/');
    expect([none.status, none.headers['www-authenticate']]).toEqual([
      401,
      'Basic realm="Authentication Required - foo"',
    ]);
    expect((await auth('/x', basic('foo', 's3cret'))).seen?.path).toBe('/x');
    expect((await auth('/', basic('sha', 'bar'))).status).toBe(200);
    expect((await auth('/', basic('foo', 'wrong'))).status).toBe(401);
    expect((await auth('/', basic('old', 'bar'))).status).toBe(401); // apr1: left out
    const open = await auth('/public');
    expect([open.status, open.headers['www-authenticate']]).toEqual([200, undefined]);
  });
});
