import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEchoConfig } from './echo-config.js';
import { startHttpEcho, type RunningEcho } from './http-echo.js';
import { httpbunDelay, MAX_DELAY_SECONDS } from './httpbun.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
  });
}

describe('the httpbun profile', () => {
  let echo: RunningEcho;
  let port: number;

  beforeAll(async () => {
    const config = resolveEchoConfig(
      { profile: 'httpbun' },
      { HTTPBUN_BIND: '127.0.0.1:0', POD_NAME: 'httpbun-7d9-x2', NAMESPACE: 'e2e' },
    );
    echo = await startHttpEcho(config);
    port = echo.listeners[0]!.port;
  });
  afterAll(async () => {
    await echo?.close();
  });

  it('takes its port from HTTPBUN_BIND, else 80 as the image', () => {
    expect(resolveEchoConfig({ profile: 'httpbun' }, { HTTPBUN_BIND: ':8080' }).httpPort).toBe(
      8080,
    );
    expect(resolveEchoConfig({ profile: 'httpbun' }, {}).httpPort).toBe(80);
    expect(resolveEchoConfig({}, {}).profile).toBeUndefined();
    expect(() => resolveEchoConfig({ profile: 'httpbin' }, {})).toThrow(/echo-basic, httpbun/);
  });

  it('answers /status/N with that status, and refuses a bad code', async () => {
    expect((await get(port, '/status/418')).status).toBe(418);
    expect((await get(port, '/status/503?x=1')).status).toBe(503);
    expect((await get(port, '/status/9999')).status).toBe(400);
  });

  it('sets the headers /response-headers names, repeats kept', async () => {
    const res = await get(port, '/response-headers?X-One=1&X-Two=b&X-Two=c');
    expect(res.status).toBe(200);
    expect(res.headers['x-one']).toBe('1');
    expect(res.headers['x-two']).toBe('b, c');
    expect(JSON.parse(res.body)).toEqual({ 'X-One': ['1'], 'X-Two': ['b', 'c'] });
    expect((await get(port, '/response-headers?bad%20name=1')).status).toBe(400);
  });

  it('sets cookies from the query or the path and redirects to /cookies', async () => {
    const q = await get(port, '/cookies/set?a=1&b=two');
    expect(q.status).toBe(302);
    expect(q.headers.location).toBe('/cookies');
    expect(q.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=two; Path=/']);
    const p = await get(port, '/cookies/set/alma/armud');
    expect(p.headers['set-cookie']).toEqual(['alma=armud; Path=/']);
    expect((await get(port, '/cookies/set?a=x%3By')).status).toBe(400);
    const c = await get(port, '/cookies', { cookie: 'a=1; b=two' });
    expect(JSON.parse(c.body)).toEqual({ cookies: { a: '1', b: 'two' } });
  });

  it('checks /basic-auth/user/pass', async () => {
    const no = await get(port, '/basic-auth/user/password');
    expect(no.status).toBe(401);
    expect(no.headers['www-authenticate']).toBe('Basic realm="Fake Realm"');
    const auth = `Basic ${Buffer.from('user:password').toString('base64')}`;
    const yes = await get(port, '/basic-auth/user/password', { authorization: auth });
    expect(yes.status).toBe(200);
    expect(JSON.parse(yes.body)).toEqual({ authenticated: true, user: 'user' });
  });

  it('names its pod on /info', async () => {
    const res = await get(port, '/info');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ hostname: 'httpbun-7d9-x2', namespace: 'e2e' });
  });

  it('answers /delay/N after N seconds with the echo', async () => {
    const started = Date.now();
    const res = await get(port, '/delay/1?k=v');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(JSON.parse(res.body)).toMatchObject({ path: '/delay/1?k=v', pod: 'httpbun-7d9-x2' });
    expect(httpbunDelay('/delay/0.5')).toBe(0.5);
    expect(httpbunDelay('/delay/9999')).toBe(MAX_DELAY_SECONDS);
    expect(httpbunDelay('/delayed')).toBeUndefined();
  });

  it('echoes any other path with the client address', async () => {
    const res = await get(port, '/anything/else?q=1', { 'X-Seen': 'yes' });
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({ path: '/anything/else?q=1', method: 'GET' });
    expect(body.headers['X-Seen']).toEqual(['yes']);
    expect(body.remoteAddress).toMatch(/127\.0\.0\.1$/);
  });
});
