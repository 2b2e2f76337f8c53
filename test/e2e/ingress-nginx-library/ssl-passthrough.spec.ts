import { createServer, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { rm } from 'node:fs/promises';
import {
  cliCommand,
  describeForMajors,
  freePort,
  retryPortRace,
  startHaproxy,
  waitUntil,
  type HaproxyUnderTest,
} from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';
import { renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { get } from './local-backends.js';
import { nginxIngress } from './nginx-ingress.js';

// ssl-passthrough of the ingress-nginx library through a real HAProxy: a TLS upstream with its
// own certificate reached by SNI, undecrypted; another host on the same port still TLS-terminated
// by HAProxy with its Ingress's certificate; a client without SNI on the terminating path.

const NS = 'apps';
const PT_HOST = 'pt.pt.test';
const TERM_HOST = 'term.pt.test';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** What a server answered, and the certificate the client was shown. */
interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** The CN of the certificate the TLS client saw. */
  readonly cn: string;
}

/** A JSON answer with an exact Content-Length. */
function answer(res: ServerResponse, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length });
  res.end(text);
}

/** The TLS upstream: answers who it is and the SNI its TLS side saw. */
async function startTlsUpstream(cert: { cert: string; key: string }): Promise<Server> {
  const server = createHttpsServer(cert, (req, res) => {
    const socket = req.socket as TLSSocket & { servername?: string | false };
    answer(res, { by: 'upstream', sni: socket.servername || '' });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/** The plain HTTP echo behind the terminating host: the headers it got. */
async function startEcho(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res, { by: 'echo', headers: req.headers }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/**
 * One HTTP/1.1 GET over TLS to 127.0.0.1:`port`, Host `host`, with `sni` as SNI (none when
 * undefined: the address is an IP, so Node sends none): the status, the JSON body and the CN.
 */
function tlsGet(port: number, host: string, sni: string | undefined): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      rejectUnauthorized: false, // the certificate is what is judged, by its CN
      ...(sni === undefined ? {} : { servername: sni }),
    });
    let text = '';
    let cn = '';
    socket.setTimeout(10_000, () => socket.destroy(new Error(`TLS GET ${host} timed out`)));
    socket.once('secureConnect', () => {
      cn = String(socket.getPeerCertificate().subject?.CN ?? '');
      socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    socket.once('error', reject);
    socket.once('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      try {
        resolve({ status, body: JSON.parse(body) as Record<string, unknown>, cn });
      } catch {
        resolve({ status, body: { text: body }, cn });
      }
    });
  });
}

const port = (s: Server) => (s.address() as AddressInfo).port;

/** A Service named `name` on port `svcPort` whose one endpoint is 127.0.0.1:`at`. */
const service = (name: string, svcPort: number, at: number) => [
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS },
    spec: { ports: [{ name: 'p', port: svcPort }] },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${name}-1`, namespace: NS, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    ports: [{ name: 'p', port: at }],
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
  },
];

interface Listener {
  readonly haproxy: HaproxyUnderTest;
  readonly http: number;
  readonly https: number;
  readonly cfg: string;
}

describeForMajors(['2.6', '3.0'], 'ingress-nginx ssl-passthrough through HAProxy', (install) => {
  let base: string;
  let upstream: Server;
  let echo: Server;
  let on: Listener;
  let off: Listener;
  const upstreamCert = makeCertificate('upstream.pt.test');
  const termCert = makeCertificate(TERM_HOST);

  /** The library's render with these settings, served by a HAProxy on fresh ports. */
  async function listen(extra: Record<string, unknown>): Promise<Listener> {
    const [http, https, stats] = [await freePort(), await freePort(), await freePort()];
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
        metadata: { name: 'term', namespace: NS },
        type: 'kubernetes.io/tls',
        data: { 'tls.crt': b64(termCert.cert), 'tls.key': b64(termCert.key) },
      },
      ...service('secure', 443, port(upstream)),
      ...service('echo', 8080, port(echo)),
      // HTTPS to the upstream for plain HTTP requests to the host, as such Ingresses are written
      nginxIngress(
        'pt',
        { 'ssl-passthrough': 'true', 'backend-protocol': 'HTTPS' },
        { namespace: NS, host: PT_HOST, service: 'secure', port: 443 },
      ),
      nginxIngress('term', {}, { namespace: NS, host: TERM_HOST, tlsSecret: 'term' }),
    ];
    const settings = { http_port: http, https_port: https, stats_port: stats, ...extra };
    const cfg = await renderLibraryConfig(base, 'ingress-nginx', settings, objects);
    const haproxy = await startHaproxy({ bin: install.bin, config: () => cfg });
    return { haproxy, http, https, cfg };
  }

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    upstream = await startTlsUpstream(upstreamCert);
    echo = await startEcho();
    // a port found free can be taken by a test beside this one before HAProxy binds it
    on = await retryPortRace(() => listen({ enable_ssl_passthrough: true }));
    off = await retryPortRace(() => listen({}));
  }, 120_000);

  afterAll(async () => {
    await on?.haproxy.stop();
    await off?.haproxy.stop();
    await new Promise((r) => upstream?.close(r));
    await new Promise((r) => echo?.close(r));
    if (base) await rm(base, { recursive: true, force: true });
  });

  it("passes the host's TLS through by SNI: the client sees the upstream's certificate", async () => {
    const r = await tlsGet(on.https, PT_HOST, PT_HOST);
    expect(r).toEqual({
      status: 200,
      body: { by: 'upstream', sni: PT_HOST },
      cn: 'upstream.pt.test',
    });
    // the SNI is matched without regard to case
    const upper = await tlsGet(on.https, PT_HOST, 'PT.Pt.Test');
    expect([upper.cn, upper.body['by']]).toEqual(['upstream.pt.test', 'upstream']);
  });

  it('terminates TLS for another host on the same port with its Ingress certificate, keeping the client address', async () => {
    const r = await tlsGet(on.https, TERM_HOST, TERM_HOST);
    expect([r.status, r.cn, r.body['by']]).toEqual([200, TERM_HOST, 'echo']);
    const headers = r.body['headers'] as Record<string, string>;
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('https');
    expect(headers['x-forwarded-port']).toBe(String(on.https));
  });

  it('sends a client without SNI to the terminating path', async () => {
    const r = await tlsGet(on.https, TERM_HOST, undefined);
    expect([r.status, r.cn, r.body['by']]).toEqual([200, TERM_HOST, 'echo']);
    // even with the passed-through host's name in Host: TLS was ended by HAProxy, not passed
    const pt = await tlsGet(on.https, PT_HOST, undefined);
    expect(pt.cn).toBe(TERM_HOST);
    expect(pt.body).toEqual({ by: 'upstream', sni: '' });
  });

  it('still proxies plain HTTP to the host through the HTTP frontend', async () => {
    expect((await get(on.http, PT_HOST)).status).toBe(200);
    expect((await get(on.http, TERM_HOST)).status).toBe(308); // ssl-redirect of a TLS host
  });

  it('keeps both paths through a reload (the internal socket is bound again)', async () => {
    const before = await on.haproxy.showProc();
    await cliCommand(on.haproxy.masterSocket, 'reload', { timeoutMs: 30_000 });
    await waitUntil('a new current worker', async () => {
      const proc = await on.haproxy.showProc();
      return proc.workers.some((w) => w.pid !== before.workers[0]?.pid) ? proc : undefined;
    });
    expect((await on.haproxy.showProc()).master.failed).toBe(0);
    expect((await tlsGet(on.https, PT_HOST, PT_HOST)).cn).toBe('upstream.pt.test');
    expect((await tlsGet(on.https, TERM_HOST, TERM_HOST)).cn).toBe(TERM_HOST);
  });

  it('without enable_ssl_passthrough terminates TLS for the host too, with haproxy.cfg unchanged', async () => {
    const r = await tlsGet(off.https, PT_HOST, PT_HOST);
    // HAProxy's certificate, and HAProxy's own connection to the upstream (no SNI sent)
    expect([r.status, r.cn, r.body]).toEqual([200, TERM_HOST, { by: 'upstream', sni: '' }]);
    expect(off.cfg).not.toMatch(/mode tcp|abns@|ssl_sni/);
    expect(on.cfg).toMatch(/^frontend https\n/m);
  });
});
