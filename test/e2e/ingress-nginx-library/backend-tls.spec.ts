import { rm } from 'node:fs/promises';
import { request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';
import { renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { nginxIngress } from './nginx-ingress.js';

// Backend TLS of the ingress-nginx library (proxy-ssl-*), judged on real traffic: HAProxy runs
// the library's render and proxies to HTTPS upstreams on loopback — one that any client may
// reach, one that requires a client certificate — which answer with what their TLS side saw.

const NS = 'apps';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** What an upstream saw of the TLS connection HAProxy opened. */
interface Seen {
  readonly sni: string;
  readonly protocol: string;
  readonly client: string;
}

/** An HTTPS upstream with `cert`; with `clientCa`, a client certificate it signs is required. */
async function startUpstream(
  cert: { cert: string; key: string },
  clientCa?: string,
): Promise<Server> {
  const server = createHttpsServer(
    {
      ...cert,
      ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const seen: Seen = {
        sni: (socket as TLSSocket & { servername?: string | false }).servername || '',
        protocol: socket.getProtocol() ?? '',
        client: String(socket.getPeerCertificate().subject?.CN ?? ''),
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(seen));
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/** One GET to HAProxy's HTTP port on 127.0.0.1 (20 s: a failed TLS connection is retried): the status and what the upstream saw. */
function get(port: number, host: string): Promise<{ status: number; seen?: Seen }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 20_000 },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString('utf8')));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const json = res.headers['content-type'] === 'application/json';
          resolve({
            status,
            ...(status === 200 && json ? { seen: JSON.parse(text) as Seen } : {}),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${host} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const secret = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  type: 'Opaque',
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

/** A Service and the EndpointSlice putting it on an upstream's loopback port. */
const service = (name: string, port: number) => [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS },
    spec: { ports: [{ name: 'https', port: 443 }] },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${name}-1`, namespace: NS, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    ports: [{ name: 'https', port }],
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
  },
];

/** An Ingress for `<name>.tls.test` to `svc`, reached over HTTPS with these proxy-ssl-* annotations. */
const ingress = (name: string, svc: string, annotations: Record<string, string>) =>
  nginxIngress(
    name,
    { 'backend-protocol': 'HTTPS', ...annotations },
    {
      namespace: NS,
      host: `${name}.tls.test`,
      service: svc,
      port: 443,
    },
  );

const verified = (ref: string, name = 'backend.svc') => ({
  'proxy-ssl-secret': `${NS}/${ref}`,
  'proxy-ssl-verify': 'on',
  'proxy-ssl-name': name,
});

describeForMajors(['2.6', '3.0'], 'ingress-nginx backend TLS through HAProxy', (install) => {
  let base: string;
  let open: Server;
  let mutual: Server;
  let haproxy: HaproxyUnderTest;
  let http: number;
  let cfg: string;
  const upstream = makeCertificate('backend.svc');
  const stranger = makeCertificate('backend.svc');
  const client = makeCertificate('haproxy-client');

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    open = await startUpstream(upstream);
    mutual = await startUpstream(upstream, client.cert);
    [http] = [await freePort()];
    const [https, stats] = [await freePort(), await freePort()];
    const extra = { http_port: http, https_port: https, stats_port: stats };
    const port = (s: Server) => (s.address() as AddressInfo).port;
    const objects = [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: 'k8s.io/ingress-nginx' },
      },
      ...service('open', port(open)),
      ...service('mutual', port(mutual)),
      secret('right-ca', { 'ca.crt': upstream.cert }),
      secret('wrong-ca', { 'ca.crt': stranger.cert }),
      secret('client', { 'ca.crt': upstream.cert, 'tls.crt': client.cert, 'tls.key': client.key }),
      ingress('verified', 'open', { ...verified('right-ca'), 'proxy-ssl-server-name': 'on' }),
      ingress('wrong-ca', 'open', verified('wrong-ca')),
      ingress('wrong-name', 'open', verified('right-ca', 'other.svc')),
      ingress('default-name', 'open', { ...verified('right-ca'), 'proxy-ssl-name': '' }),
      ingress('unverified', 'open', { 'proxy-ssl-secret': `${NS}/wrong-ca` }),
      ingress('tls13', 'open', { ...verified('right-ca'), 'proxy-ssl-protocols': 'TLSv1.3' }),
      ingress('tls12', 'open', { ...verified('right-ca'), 'proxy-ssl-protocols': 'TLSv1.2' }),
      ingress('bad-ciphers', 'open', { ...verified('right-ca'), 'proxy-ssl-ciphers': 'NOPE' }),
      ingress('mtls', 'mutual', verified('client')),
      ingress('mtls-no-cert', 'mutual', verified('right-ca')),
      ingress('missing', 'open', verified('no-such-secret')),
    ];
    cfg = await renderLibraryConfig(base, 'ingress-nginx', extra, objects);
    haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await new Promise((r) => open?.close(r));
    await new Promise((r) => mutual?.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('verifies the upstream against ca.crt and proxy-ssl-name, sending it as SNI with proxy-ssl-server-name', async () => {
    const r = await get(http, 'verified.tls.test');
    expect(r.status).toBe(200);
    expect(r.seen?.sni).toBe('backend.svc');
    // without proxy-ssl-server-name, no SNI
    const plain = await get(http, 'tls12.tls.test');
    expect([plain.status, plain.seen?.sni]).toEqual([200, '']);
  });

  it('fails the request when the upstream certificate is not from ca.crt or not for proxy-ssl-name', async () => {
    expect((await get(http, 'wrong-ca.tls.test')).status).toBe(503);
    expect((await get(http, 'wrong-name.tls.test')).status).toBe(503);
    // ingress-nginx's name without proxy-ssl-name is its upstream_balancer, which no certificate has
    expect((await get(http, 'default-name.tls.test')).status).toBe(503);
  });

  it('does not verify without proxy-ssl-verify on', async () => {
    expect((await get(http, 'unverified.tls.test')).status).toBe(200);
  });

  it('presents tls.crt to an upstream that requires a client certificate; without it, the request fails', async () => {
    const r = await get(http, 'mtls.tls.test');
    expect([r.status, r.seen?.client]).toEqual([200, 'haproxy-client']);
    expect((await get(http, 'mtls-no-cert.tls.test')).status).toBe(503);
  });

  it('speaks only the proxy-ssl-protocols named', async () => {
    expect((await get(http, 'tls13.tls.test')).seen?.protocol).toBe('TLSv1.3');
    expect((await get(http, 'tls12.tls.test')).seen?.protocol).toBe('TLSv1.2');
  });

  it('renders the default cipher list for a bad proxy-ssl-ciphers, never the value', async () => {
    expect(cfg).not.toContain('NOPE');
    expect(cfg).toMatch(/ciphers DEFAULT/);
    expect((await get(http, 'bad-ciphers.tls.test')).status).toBe(200);
  });

  it('answers 503 for a proxy-ssl-secret that is not found', async () => {
    expect((await get(http, 'missing.tls.test')).status).toBe(503);
  });
});
