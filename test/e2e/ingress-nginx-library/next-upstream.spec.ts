import { rm } from 'node:fs/promises';
import { createServer, request, type ClientRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { waitFor } from '#testbed/stack';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { nginxIngress } from './nginx-ingress.js';

// proxy-next-upstream, its tries, and proxy-request-buffering judged by traffic through a real
// HAProxy running the ingress-nginx library's render: Services with one good endpoint and one
// refusing connections (or answering 502), and a backend that notes when a request reaches it.

const NS = 'apps';
// A privileged port nothing listens on (tcpmux): a connection there is refused, and no other test
// can take it the way it could take a port that was free a moment ago.
const REFUSING_PORT = 1;

/** A backend answering `status` to every request; `seen` notes each request's Host on arrival. */
async function startServer(status: number, seen: string[] = []): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push(req.headers.host ?? '');
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}
const portOf = (s: Server) => (s.address() as AddressInfo).port;

/** A Service (port 8080) whose one EndpointSlice per port lists 127.0.0.1 at that port. */
function service(name: string, ports: readonly number[]): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    },
    ...ports.map((port, i) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-${i}`,
        namespace: NS,
        labels: { 'kubernetes.io/service-name': name },
      },
      addressType: 'IPv4',
      ports: [{ name: 'http', port }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    })),
  ];
}

const ingress = (name: string, svc: string, annotations: Record<string, string> = {}) =>
  nginxIngress(name, annotations, { namespace: NS, host: `${name}.retry.test`, service: svc });

/** A request with a body of `body.length` bytes of which only `sent` are written (10 s timeout). */
function open(port: number, name: string, method: string, body: string, sent = body.length) {
  let req: ClientRequest | undefined;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method,
        headers: { host: `${name}.retry.test`, 'content-length': String(body.length) },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('timeout', () => req?.destroy(new Error(`request to ${name} timed out`)));
    req.on('error', reject);
    req.write(body.slice(0, sent));
  });
  return { answer, rest: () => req?.end(body.slice(sent)) };
}

describeForMajors(['2.6', '3.0'], 'ingress-nginx retries and request buffering', (install) => {
  let base: string;
  let servers: Server[] = [];
  let haproxy: HaproxyUnderTest;
  let http: number;
  const seen: string[] = [];

  /** The statuses of `n` requests, one after another. */
  async function statuses(name: string, n: number, method = 'GET'): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = open(http, name, method, method === 'GET' ? '' : 'payload');
      r.rest();
      out.push((await r.answer).status);
    }
    return out;
  }

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    const [good, bad] = [await startServer(200, seen), await startServer(502)];
    servers = [good, bad];
    [http] = [await freePort()];
    const extra = { http_port: http, https_port: await freePort(), stats_port: await freePort() };
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'k8s.io/ingress-nginx' },
      },
      ...echoBackend(NS, portOf(good)),
      ...service('refusing', [portOf(good), REFUSING_PORT]),
      ...service('failing', [portOf(good), portOf(bad)]),
      ingress('refusing-default', 'refusing'),
      ingress('refusing-off', 'refusing', { 'proxy-next-upstream': 'off' }),
      ingress('refusing-one-try', 'refusing', { 'proxy-next-upstream-tries': '1' }),
      ingress('failing-default', 'failing'),
      ingress('failing-502', 'failing', { 'proxy-next-upstream': 'error timeout http_502' }),
      ingress('failing-502-all', 'failing', {
        'proxy-next-upstream': 'error timeout http_502 non_idempotent',
      }),
      ingress('buffered', 'echo'),
      ingress('streamed', 'echo', { 'proxy-request-buffering': 'off' }),
    ];
    const cfg = await renderLibraryConfig(base, 'ingress-nginx', extra, objects);
    haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    for (const s of servers) await new Promise((r) => s.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('passes a refused connection on to the other endpoint by default, not with off or one try', async () => {
    expect(await statuses('refusing-default', 6)).toEqual([200, 200, 200, 200, 200, 200]);
    // round robin over the two endpoints: every other request meets the refusing one
    expect(await statuses('refusing-off', 6)).toContain(503);
    expect(await statuses('refusing-one-try', 6)).toContain(503);
  }, 60_000);

  it('passes a 502 on only when http_502 is listed, and a POST only with non_idempotent', async () => {
    expect(await statuses('failing-default', 6)).toContain(502);
    expect(await statuses('failing-502', 6)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await statuses('failing-502', 6, 'POST')).toContain(502);
    expect(await statuses('failing-502-all', 6, 'POST')).toEqual([200, 200, 200, 200, 200, 200]);
  }, 60_000);

  it('holds a request until its body is whole, unless proxy-request-buffering is off', async () => {
    const buffered = open(http, 'buffered', 'POST', '0123456789', 5);
    const streamed = open(http, 'streamed', 'POST', '0123456789', 5);
    // the streamed request reaches the backend with half its body sent; the buffered one has not
    await waitFor('the streamed request at the backend', () =>
      seen.includes('streamed.retry.test') ? true : undefined,
    );
    expect(seen).not.toContain('buffered.retry.test');
    buffered.rest();
    streamed.rest();
    expect(await buffered.answer).toEqual({ status: 200, body: '0123456789' });
    expect(await streamed.answer).toEqual({ status: 200, body: '0123456789' });
    expect(seen).toContain('buffered.retry.test');
  }, 60_000);
});
