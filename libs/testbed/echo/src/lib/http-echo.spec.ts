import { rmSync } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEchoConfig } from './echo-config.js';
import { startHttpEcho, type RunningEcho } from './http-echo.js';
import { makeTestCerts, type TestCerts } from '../../../../../test/support/test-certs.js';

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

describe('HTTP echo server', () => {
  let echo: RunningEcho;
  let certs: TestCerts;
  const port = (kind: string): number => echo.listeners.find((l) => l.kind === kind)!.port;

  beforeAll(async () => {
    certs = makeTestCerts();
    const config = resolveEchoConfig(
      { port: '0', h2cPort: '0', httpsPort: '0' },
      {
        POD_NAME: 'echo-1',
        NAMESPACE: 'ns-a',
        TLS_SERVER_CERT: certs.certFile,
        TLS_SERVER_PRIVKEY: certs.keyFile,
        TLS_CLIENT_CACERTS: certs.caFile,
      },
    );
    echo = await startHttpEcho(config);
  });
  afterAll(async () => {
    await echo?.close();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it('listens on HTTP, h2c and HTTPS', () => {
    expect(echo.listeners.map((l) => l.kind)).toEqual(['http', 'h2c', 'https']);
    expect(echo.listeners.every((l) => l.port > 0 && l.address === '127.0.0.1')).toBe(true);
  });

  it('echoes method, path, host, headers and the pod context', async () => {
    const res = await get(port('http'), '/some//path?a=b', {
      'x-test': 'yes',
      Host: 'example.com',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const body = JSON.parse(res.body);
    expect(body).toMatchObject({
      path: '/some//path?a=b',
      host: 'example.com',
      method: 'GET',
      proto: 'HTTP/1.1',
      namespace: 'ns-a',
      pod: 'echo-1',
      sni: '',
    });
    expect(body.headers['X-Test']).toEqual(['yes']);
    expect(body.tls).toBeUndefined();
  });

  it('answers /health, /status/NNN and sets X-Echo-Set-Header headers', async () => {
    expect((await get(port('http'), '/health')).body).toBe('OK');
    expect((await get(port('http'), '/status/503')).status).toBe(503);
    expect((await get(port('http'), '/status/abc')).status).toBe(400);
    const res = await get(port('http'), '/', { 'X-Echo-Set-Header': 'X-One: 1, X-Two: 2' });
    expect(res.headers['x-one']).toBe('1');
    expect(res.headers['x-two']).toBe('2');
    expect((await get(port('http'), '/?delay=bogus')).status).toBe(500);
    expect((await get(port('http'), '/?delay=10ms')).status).toBe(200);
  });

  it('answers /auth as an external-auth service: status by path or X-Auth-Status, user headers on 2xx', async () => {
    const ok = await get(port('http'), '/auth?x=1', { 'X-Original-URL': 'http://h/p' });
    expect([ok.status, ok.headers['x-user'], ok.headers['x-email']]).toEqual([
      200,
      'alice',
      'alice@example.com',
    ]);
    const seen = JSON.parse(ok.body) as { uri: string; headers: Record<string, string> };
    expect([seen.uri, seen.headers['x-original-url']]).toEqual(['/auth?x=1', 'http://h/p']);
    expect(ok.headers['x-seen-original-url']).toBe('http://h/p');
    const bob = await get(port('http'), '/auth', { 'X-Auth-User': 'bob' });
    expect(bob.headers['x-user']).toBe('bob');
    const denied = await get(port('http'), '/auth', { 'X-Auth-Status': '401' });
    expect([denied.status, denied.headers['x-user']]).toEqual([401, undefined]);
    expect((await get(port('http'), '/auth/403')).status).toBe(403);
    const cookie = await get(port('http'), '/auth/cookies/set/alma/armud');
    expect([cookie.status, cookie.headers['set-cookie']]).toEqual([200, ['alma=armud']]);
    const echoed = await get(port('http'), '/auth', {
      'X-Auth-Echo': 'X-Group, bad name',
      'X-Group': 'g',
    });
    expect(echoed.headers['x-seen-x-group']).toBe('g');
    expect((await get(port('http'), '/auth', { 'X-Auth-Status': 'bad' })).status).toBe(400);
  });

  it('answers HTTP/2 with prior knowledge on the h2c port', async () => {
    const session = http2.connect(`http://127.0.0.1:${port('h2c')}`);
    const body = await new Promise<string>((resolve, reject) => {
      const stream = session.request({ ':path': '/h2', 'x-h2': 'on' });
      let data = '';
      stream.setEncoding('utf8').on('data', (c: string) => (data += c));
      stream.on('end', () => resolve(data));
      stream.on('error', reject);
    });
    session.close();
    expect(JSON.parse(body)).toMatchObject({
      path: '/h2',
      proto: 'HTTP/2.0',
      headers: { 'X-H2': ['on'] },
    });
  });

  it('reports TLS version, SNI, cipher and the client certificate over HTTPS', async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = https.get(
        {
          host: '127.0.0.1',
          port: port('https'),
          path: '/backendTLS',
          servername: 'echo.example',
          ca: certs.ca,
          cert: certs.clientCert,
          key: certs.clientKey,
          ALPNProtocols: ['http/1.1'],
          agent: false,
        } as https.RequestOptions,
        (res) => {
          let data = '';
          res.setEncoding('utf8').on('data', (c: string) => (data += c));
          res.on('end', () => resolve(data));
        },
      );
      req.on('error', reject);
    });
    const answer = JSON.parse(body);
    expect(answer.sni).toBe('echo.example');
    expect(answer.tls).toMatchObject({
      version: 'TLSv1.3',
      serverName: 'echo.example',
      negotiatedProtocol: 'http/1.1',
    });
    expect(answer.tls.cipherSuite).toMatch(/^TLS_/);
    expect(answer.tls.peerCertificates[0]).toContain('-----BEGIN CERTIFICATE-----');
  });
});
