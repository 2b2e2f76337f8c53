import { rm } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeForMajors, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, tempBase } from '../ingress-library/library.js';
import { renderNginx } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// External authentication's companions, judged as ingress-nginx's e2e test/e2e/annotations/
// auth.go judges them ("cookie set by external authentication server", "when external
// authentication with caching is configured", the signin URL `http://$host/auth/start`), plus
// auth-proxy-set-headers and the 401's WWW-Authenticate: real requests through a real HAProxy
// running the library's render and its vetted Lua action, against auth services run here.

const NS = 'apps';
const BASIC = `Basic ${Buffer.from('user:password').toString('base64')}`;

interface Started {
  readonly port: number;
  readonly server: Server;
  /** The headers of each request the server got, oldest first. */
  readonly seen: IncomingHttpHeaders[];
}

/** A server on 127.0.0.1 answering with `answer`, recording what it saw. */
async function serve(
  answer: (path: string, headers: IncomingHttpHeaders) => [number, Record<string, string>],
): Promise<Started> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const [status, headers] = answer(req.url ?? '/', req.headers);
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server, seen };
}

const close = (s: Started | undefined) =>
  new Promise((r) => (s === undefined ? r(undefined) : s.server.close(r)));

interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
}

function call(port: number, host: string, path: string, headers: object = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host, ...headers } };
    const req = request({ ...options, timeout: 15_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${host}${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const ingress = (name: string, host: string, path: string, annotations: object) =>
  nginxIngress(name, annotations, { namespace: NS, host, path });

describeForMajors(['2.6', '3.0'], 'ingress-nginx external authentication companions', (install) => {
  let base: string;
  let backend: Started;
  let auth: Started;
  let cacheAuth: Started | undefined;
  let haproxy: HaproxyUnderTest;
  let http: number;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    // the upstream: /error answers 503 (ingress-nginx's http-cookie-with-error), the rest 200
    backend = await serve((path) => [path.startsWith('/error') ? 503 : 200, {}]);
    // the auth service: /cookies/set/k/v sets a cookie (httpbun), /deny answers 401 with its
    // WWW-Authenticate, /headers answers 200 (what it saw is recorded)
    auth = await serve((path) => {
      const m = /^\/cookies\/set\/([^/]+)\/([^/?]+)/.exec(path);
      if (m) return [200, { 'set-cookie': `${m[1]}=${m[2]}` }];
      if (path.startsWith('/deny')) return [401, { 'www-authenticate': 'Bearer realm="x"' }];
      return [200, {}];
    });
    // the cached one: httpbun's /basic-auth/user/password
    cacheAuth = await serve((_, h) =>
      h.authorization === BASIC ? [200, {}] : [401, { 'www-authenticate': 'Basic realm="Fake"' }],
    );
    const authAt = `http://127.0.0.1:${auth.port}`;
    const cacheAt = `http://127.0.0.1:${cacheAuth.port}/basic-auth/user/password`;
    const cookie = { 'auth-url': `${authAt}/cookies/set/alma/armud` };
    const always = { ...cookie, 'auth-always-set-cookie': 'true' };
    const cached = {
      'auth-url': cacheAt,
      'auth-signin': 'http://$host/auth/start',
      'auth-cache-key': 'fixed',
      'auth-cache-duration': '200 201 401 30m',
    };
    const objects = [
      ...echoBackend(NS, backend.port),
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'auth-headers', namespace: NS },
        data: { 'X-Group': 'team-$http_x_team', 'X-Forwarded-Host': '$host' },
      },
      ingress('cookies', 'cookies.bar.com', '/', cookie),
      ingress('cookies-error', 'cookies.bar.com', '/error', cookie),
      ingress('always', 'always.bar.com', '/', always),
      ingress('always-error', 'always.bar.com', '/error', always),
      ingress('signin', 'signin.bar.com', '/', {
        'auth-url': `${authAt}/deny`,
        'auth-signin': 'http://$host/auth/start',
      }),
      ingress('deny', 'deny.bar.com', '/', { 'auth-url': `${authAt}/deny` }),
      ingress('headers', 'headers.bar.com', '/', {
        'auth-url': `${authAt}/headers`,
        'auth-proxy-set-headers': 'auth-headers',
      }),
      ingress('headers-missing', 'headers.bar.com', '/missing', {
        'auth-url': `${authAt}/headers`,
        'auth-proxy-set-headers': 'no-such-map',
      }),
      ingress('foo-this', 'this.bar.com', '/foo', cached),
      ingress('bar-this', 'this.bar.com', '/bar', cached),
      ingress('foo-that', 'that.bar.com', '/foo', cached),
    ];
    const rendered = await renderNginx(base, objects);
    http = rendered.http;
    haproxy = await startHaproxy({ bin: install.bin, config: () => rendered.cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all([close(backend), close(auth), close(cacheAuth)]);
    if (base) await rm(base, { recursive: true, force: true });
  });

  it("user retains cookie by default: the auth service's Set-Cookie on the 200", async () => {
    const r = await call(http, 'cookies.bar.com', '/?a=b&c=d');
    expect([r.status, r.headers['set-cookie']]).toEqual([200, ['alma=armud']]);
  });

  it('user does not retain cookie if upstream returns error status code', async () => {
    const r = await call(http, 'cookies.bar.com', '/error?a=b&c=d');
    expect([r.status, r.headers['set-cookie']]).toEqual([503, undefined]);
  });

  it('user with annotated ingress (auth-always-set-cookie) retains cookie on the 503', async () => {
    const r = await call(http, 'always.bar.com', '/error?a=b&c=d');
    expect([r.status, r.headers['set-cookie']]).toEqual([503, ['alma=armud']]);
  });

  it('auth-signin http://$host/auth/start: 302 to the request host with rd=', async () => {
    const r = await call(http, 'signin.bar.com', '/?a=b&c=d');
    expect([r.status, r.headers.location]).toEqual([
      302,
      'http://signin.bar.com/auth/start?rd=http://signin.bar.com%2F%3Fa%3Db%26c%3Dd',
    ]);
  });

  it("a 401 carries the auth service's WWW-Authenticate", async () => {
    const r = await call(http, 'deny.bar.com', '/');
    expect([r.status, r.headers['www-authenticate']]).toEqual([401, 'Bearer realm="x"']);
  });

  it("auth-proxy-set-headers: the ConfigMap's headers reach the auth service, variables expanded", async () => {
    const before = auth.seen.length;
    const r = await call(http, 'headers.bar.com', '/', { 'X-Team': 'blue', 'X-Group': 'forged' });
    expect(r.status).toBe(200);
    const seen = auth.seen.slice(before);
    expect(seen.map((h) => [h['x-group'], h['x-forwarded-host']])).toEqual([
      ['team-blue', 'headers.bar.com'],
    ]);
  });

  it('auth-proxy-set-headers naming a missing ConfigMap: its location answers 503, the auth service is not asked', async () => {
    const before = auth.seen.length;
    expect((await call(http, 'headers.bar.com', '/missing')).status).toBe(503);
    expect(auth.seen.length).toBe(before);
  });

  it('with caching: signed in after the auth backend is deleted, denied on another location and another server', async () => {
    const cred = { authorization: BASIC };
    expect((await call(http, 'this.bar.com', '/foo', cred)).status).toBe(200);
    const asked = cacheAuth?.seen.length;
    // a second request is answered from the cache: the service is not asked again
    expect((await call(http, 'this.bar.com', '/foo', cred)).status).toBe(200);
    expect(cacheAuth?.seen.length).toBe(asked);
    await close(cacheAuth);
    cacheAuth = undefined;
    expect((await call(http, 'this.bar.com', '/foo', cred)).status).toBe(200);
    // nothing cached for /bar on this server, nor for /foo on that server: the service is gone
    expect((await call(http, 'this.bar.com', '/bar', cred)).status).toBe(500);
    expect((await call(http, 'that.bar.com', '/foo', cred)).status).toBe(500);
  });
});
