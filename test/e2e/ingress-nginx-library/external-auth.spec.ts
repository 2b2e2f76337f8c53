import { rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveEchoConfig, startHttpEcho, type RunningEcho } from '#testbed/echo';
import { describeForMajors, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, tempBase } from '../ingress-library/library.js';
import { renderNginx } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// External authentication (auth-url and companions) judged as ingress-nginx's e2e
// test/e2e/annotations/auth.go judges it: real requests through a real HAProxy running the
// library's render and its vetted Lua action, the test-bed echo's /auth route as the auth
// service, status and Location from the client's side, headers from the backend's side.

const NS = 'apps';

/** The backend: answers 200 with the headers it saw. */
async function startBackend(): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, headers: req.headers }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

interface Reply {
  readonly status: number;
  readonly location: string | undefined;
  /** What the backend saw (its 200 answers only). */
  readonly seen?: { path: string; headers: Record<string, string> };
}

/** One request to HAProxy on 127.0.0.1 (15 s timeout: the auth call is one more hop). */
function call(port: number, host: string, path: string, headers: object = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = { host: '127.0.0.1', port, path, headers: { host, ...headers } };
    const req = request({ ...options, timeout: 15_000 }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const json = status === 200 && res.headers['content-type'] === 'application/json';
        const location = res.headers['location'];
        resolve({ status, location, ...(json ? { seen: JSON.parse(text) } : {}) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${host}${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const ingress = (name: string, host: string, path: string, annotations: object) =>
  nginxIngress(name, annotations, { namespace: NS, host, path });

describeForMajors(['2.6', '3.0'], 'ingress-nginx external authentication (auth-url)', (install) => {
  let base: string;
  let echo: { port: number; server: Server };
  let auth: RunningEcho | undefined;
  let haproxy: HaproxyUnderTest;
  let http: number;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    echo = await startBackend();
    auth = await startHttpEcho(resolveEchoConfig({ port: '0', address: '127.0.0.1' }, {}));
    const authUrl = `http://127.0.0.1:${auth.listeners[0]?.port ?? 0}/auth`;
    const seen = 'X-Seen-Original-URL, X-Seen-Original-Method, X-Seen-Sent-From';
    const objects = [
      ...echoBackend(NS, echo.port),
      ingress('private', 'auth.bar.com', '/', {
        'auth-url': authUrl,
        'auth-response-headers': `X-User, X-Email, ${seen}`,
      }),
      ingress('public', 'auth.bar.com', '/public', {}),
      ingress('signin', 'signin.bar.com', '/', {
        'auth-url': authUrl,
        'auth-signin': 'https://login.bar.com/start',
      }),
    ];
    const rendered = await renderNginx(base, objects);
    http = rendered.http;
    haproxy = await startHaproxy({ bin: install.bin, config: () => rendered.cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await auth?.close();
    await new Promise((r) => echo?.server.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it("auth 200: the backend is reached, auth-response-headers replace the client's values", async () => {
    const r = await call(http, 'auth.bar.com', '/app?x=1', { 'X-User': 'mallory' });
    expect(r.status).toBe(200);
    expect(r.seen?.path).toBe('/app?x=1');
    expect(r.seen?.headers['x-user']).toBe('alice');
    expect(r.seen?.headers['x-email']).toBe('alice@example.com');
    // what the auth service saw, as ingress-nginx sends it
    expect(r.seen?.headers['x-seen-original-url']).toBe('http://auth.bar.com/app?x=1');
    expect(r.seen?.headers['x-seen-original-method']).toBe('GET');
    expect(r.seen?.headers['x-seen-sent-from']).toBe('nginx-ingress-controller');
  });

  it('auth 401 answers 401, 403 answers 403, 500 answers 500; another Ingress on the host is not asked', async () => {
    const as = (status: string) => call(http, 'auth.bar.com', '/', { 'X-Auth-Status': status });
    expect((await as('401')).status).toBe(401);
    expect((await as('403')).status).toBe(403);
    expect((await as('500')).status).toBe(500);
    const open = await call(http, 'auth.bar.com', '/public', { 'X-Auth-Status': '401' });
    expect(open.status).toBe(200);
  });

  it('auth 401 with auth-signin answers 302 to the signin URL with rd=<original URL>', async () => {
    const r = await call(http, 'signin.bar.com', '/a/b?c=1', { 'X-Auth-Status': '401' });
    expect([r.status, r.location]).toEqual([
      302,
      'https://login.bar.com/start?rd=http://signin.bar.com%2Fa%2Fb%3Fc%3D1',
    ]);
    expect((await call(http, 'signin.bar.com', '/a')).status).toBe(200);
  });

  it('auth service gone: 500 for that Ingress only, the other Ingress on the host still 200', async () => {
    await auth?.close();
    auth = undefined;
    expect((await call(http, 'auth.bar.com', '/app')).status).toBe(500);
    expect((await call(http, 'auth.bar.com', '/public')).status).toBe(200);
  });
});
