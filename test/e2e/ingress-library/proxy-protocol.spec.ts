import { createServer, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';
import { echoBackend, renderLibraryConfig, tempBase } from './library.js';

// PROXY protocol through a real HAProxy running the Ingress library's render with
// proxy_protocol on: 127.0.0.1 is the trusted source (the load balancer), 127.0.0.2 an
// untrusted client. Both are the test's own loopback addresses (clients bind them as source).

const NS = 'pp';
const TRUSTED = '127.0.0.1';
const UNTRUSTED = '127.0.0.2';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** An echo backend answering with the X-Forwarded-For it received. */
function startEcho(): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    const body = JSON.stringify({ xff: req.headers['x-forwarded-for'] ?? null });
    // A length, not chunks: the test reads the raw response body as JSON.
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve({ port: (server.address() as AddressInfo).port, server }),
    );
  });
}

/** A PROXY protocol v2 header (PROXY command, TCP over IPv4) for `src` → 127.0.0.1:`dstPort`. */
function proxyV2(src: string, dstPort: number): Buffer {
  const sig = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
  const body = Buffer.alloc(12);
  src.split('.').forEach((o, i) => body.writeUInt8(Number(o), i));
  [127, 0, 0, 1].forEach((o, i) => body.writeUInt8(o, 4 + i));
  body.writeUInt16BE(40000, 8);
  body.writeUInt16BE(dstPort, 10);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(body.length);
  return Buffer.concat([sig, Buffer.from([0x21, 0x11]), len, body]);
}

const proxyV1 = (src: string, dstPort: number): Buffer =>
  Buffer.from(`PROXY TCP4 ${src} 127.0.0.1 40000 ${String(dstPort)}\r\n`);

const REQUEST = 'GET / HTTP/1.1\r\nHost: app.example.com\r\nConnection: close\r\n\r\n';

/** Everything the server sent until it closed (or `''` on a reset), bounded by 10 s. */
function drain(socket: Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 10 s; received: ${text}`));
    }, 10_000);
    socket.on('data', (c: Buffer) => (text += c.toString('utf8')));
    socket.on('error', () => undefined); // a reset ends the exchange like a close
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(text);
    });
  });
}

/** One plain-TCP exchange from `from`: an optional PROXY header, then an HTTP/1.1 request. */
async function exchange(port: number, from: string, header?: Buffer): Promise<string> {
  const socket = netConnect({ host: '127.0.0.1', port, localAddress: from });
  const answer = drain(socket);
  await new Promise<void>((r) => socket.once('connect', () => r()));
  socket.write(header ? Buffer.concat([header, Buffer.from(REQUEST)]) : REQUEST);
  return answer;
}

/** The same over TLS: the PROXY header on the TCP connection, the request inside TLS. */
async function exchangeTls(port: number, from: string, header: Buffer): Promise<string> {
  const raw = netConnect({ host: '127.0.0.1', port, localAddress: from });
  await new Promise<void>((r, j) => raw.once('connect', () => r()).once('error', j));
  raw.write(header);
  const socket = tlsConnect({
    socket: raw,
    servername: 'app.example.com',
    rejectUnauthorized: false,
  });
  const answer = drain(socket);
  await new Promise<void>((r) => socket.once('secureConnect', () => r()));
  socket.write(REQUEST);
  return answer;
}

const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
const xffOf = (answer: string): unknown =>
  (JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { xff: unknown }).xff;

describeForMajors(['3.0'], 'PROXY protocol through HAProxy (Ingress library)', (install) => {
  let base: string;
  let echo: { port: number; server: Server };
  let haproxy: HaproxyUnderTest;
  let http: number;
  let https: number;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    echo = await startEcho();
    const tls = makeCertificate('app.example.com');
    [http, https] = [await freePort(), await freePort()];
    const stats = await freePort();
    const extra = {
      http_port: http,
      https_port: https,
      stats_port: stats,
      default_certificate: `${NS}/tls`,
      proxy_protocol: true,
      proxy_protocol_trusted: [`${TRUSTED}/32`],
    };
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'haptic' },
        spec: { controller: 'haproxy-haptic.org/ingress-controller' },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'tls', namespace: NS },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
      },
      ...echoBackend(NS, echo.port),
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'app', namespace: NS, creationTimestamp: '2024-01-01T00:00:00Z' },
        spec: {
          ingressClassName: 'haptic',
          defaultBackend: { service: { name: 'echo', port: { number: 8080 } } },
        },
      },
    ];
    const cfg = await renderLibraryConfig(base, 'ingress', extra, objects);
    expect(cfg).toContain(`tcp-request connection expect-proxy layer4 if { src ${TRUSTED}/32 }`);
    haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
  }, 180_000);

  afterAll(async () => {
    await haproxy?.stop();
    await new Promise((r) => echo?.server.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('takes the client address from a PROXY v1 header of a trusted source', async () => {
    const answer = await exchange(http, TRUSTED, proxyV1('203.0.113.9', http));
    expect(statusOf(answer)).toBe(200);
    expect(xffOf(answer)).toBe('203.0.113.9');
  });

  it('takes the client address from a PROXY v2 header of a trusted source', async () => {
    const answer = await exchange(http, TRUSTED, proxyV2('198.51.100.4', http));
    expect(statusOf(answer)).toBe(200);
    expect(xffOf(answer)).toBe('198.51.100.4');
  });

  it('reads the PROXY header before the TLS handshake on the HTTPS bind', async () => {
    const answer = await exchangeTls(https, TRUSTED, proxyV1('192.0.2.44', https));
    expect(statusOf(answer)).toBe(200);
    expect(xffOf(answer)).toBe('192.0.2.44');
  });

  it('refuses a plain connection from a trusted source (no HTTP answer)', async () => {
    const answer = await exchange(http, TRUSTED);
    expect(answer).toBe('');
  });

  it('serves an untrusted source plainly, with its own address', async () => {
    const answer = await exchange(http, UNTRUSTED);
    expect(statusOf(answer)).toBe(200);
    expect(xffOf(answer)).toBe(UNTRUSTED);
  });

  it('never takes a forged address from an untrusted source', async () => {
    const answer = await exchange(http, UNTRUSTED, proxyV1('203.0.113.9', http));
    expect(statusOf(answer)).toBe(400);
    expect(answer).not.toContain('203.0.113.9');
  });
});
