import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  describeForMajors,
  freePort,
  retryPortRace,
  startHaproxy,
  type HaproxyUnderTest,
} from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echoBackend, renderLibraryConfig, tempBase } from '../ingress-library/library.js';
import { nginxIngress } from './nginx-ingress.js';

// Client certificates (auth-tls-*) of the ingress-nginx library, judged as ingress-nginx's
// authtls e2e test judges them: real TLS handshakes through a real HAProxy running the library's
// render, with and without a client certificate, with SNI matching the Host or not.

const NS = 'apps';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

interface Pair {
  readonly cert: string;
  readonly key: string;
}

/** A CA and a client certificate it signed (`/O=Org/CN=client`), plus a server certificate. */
function makePki(): { ca: string; client: Pair; otherClient: Pair; server: Pair } {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-cc-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const selfSigned = (name: string, subj: string) =>
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-days',
      '2',
      '-subj',
      subj,
    );
  selfSigned('ca', '/CN=test-ca');
  selfSigned('other', '/CN=client'); // same subject, another issuer
  selfSigned('server', '/CN=cc.test');
  ssl('req', ...ec, '-keyout', 'client.key', '-out', 'client.csr', '-subj', '/O=Org/CN=client');
  ssl(
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'client.crt',
    '-days',
    '2',
  );
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  const pair = (n: string): Pair => ({ cert: read(`${n}.crt`), key: read(`${n}.key`) });
  try {
    return {
      ca: read('ca.crt'),
      client: pair('client'),
      otherClient: pair('other'),
      server: pair('server'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An echo backend answering 200 with the headers it saw. */
async function startEcho(): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ headers: req.headers }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly seen?: Record<string, string>;
}

/** One HTTPS request to HAProxy: Host `host`, SNI `sni` (default: the host), optional client pair. */
function call(port: number, host: string, cert?: Pair, sni = host): Promise<Reply> {
  const options = {
    host: '127.0.0.1',
    port,
    path: '/',
    headers: { host, 'ssl-client-verify': 'SUCCESS', 'ssl-client-cert': 'forged' },
    servername: sni,
    rejectUnauthorized: false, // the server's certificate is not what is judged here
    agent: false,
    timeout: 5_000,
    ...(cert ? { cert: cert.cert, key: cert.key } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = httpsRequest(options, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString('utf8')));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const ok = status === 200 && res.headers['content-type'] === 'application/json';
        const seen = ok
          ? (JSON.parse(text) as { headers: Record<string, string> }).headers
          : undefined;
        resolve({ status, headers: res.headers, ...(seen ? { seen } : {}) });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${host} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

const ingress = (name: string, host: string, annotations: Record<string, string>) =>
  nginxIngress(name, annotations, { namespace: NS, host, tlsSecret: 'tls' });

function objects(pki: ReturnType<typeof makePki>, echoPort: number): object[] {
  const secret = (name: string, type: string, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: NS },
    type,
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  });
  const ca = { 'auth-tls-secret': `${NS}/ca` };
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'nginx' },
      spec: { controller: 'k8s.io/ingress-nginx' },
    },
    secret('tls', 'kubernetes.io/tls', { 'tls.crt': pki.server.cert, 'tls.key': pki.server.key }),
    secret('ca', 'Opaque', { 'ca.crt': pki.ca }),
    ...echoBackend(NS, echoPort),
    ingress('on', 'on.cc.test', ca),
    ingress('optional', 'opt.cc.test', { ...ca, 'auth-tls-verify-client': 'optional' }),
    ingress('noca', 'noca.cc.test', { ...ca, 'auth-tls-verify-client': 'optional_no_ca' }),
    ingress('off', 'off.cc.test', { ...ca, 'auth-tls-verify-client': 'off' }),
    ingress('open', 'open.cc.test', {}),
    ingress('pass', 'pass.cc.test', { ...ca, 'auth-tls-pass-certificate-to-upstream': 'true' }),
    ingress('cn', 'cn.cc.test', { ...ca, 'auth-tls-match-cn': 'CN=nomatch' }),
    ingress('cn-ok', 'cnok.cc.test', { ...ca, 'auth-tls-match-cn': '^CN=client,O=Org$' }),
    ingress('err', 'err.cc.test', { ...ca, 'auth-tls-error-page': 'http://error.cc.test/tls#x' }),
    ingress('missing', 'missing.cc.test', { 'auth-tls-secret': 'absent' }),
  ];
}

describeForMajors(
  ['2.6', '3.0'],
  'ingress-nginx client certificates through HAProxy',
  (install) => {
    let base: string;
    let echo: { port: number; server: Server };
    let haproxy: HaproxyUnderTest;
    let https: number;
    let pki: ReturnType<typeof makePki>;

    beforeAll(async () => {
      process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
      base = await tempBase();
      echo = await startEcho();
      pki = makePki();
      // a port found free can be taken by a test beside this one before HAProxy binds it
      haproxy = await retryPortRace(async () => {
        const [http, stats] = [await freePort(), await freePort()];
        https = await freePort();
        const extra = { http_port: http, https_port: https, stats_port: stats };
        const cfg = await renderLibraryConfig(
          base,
          'ingress-nginx',
          extra,
          objects(pki, echo.port),
        );
        return startHaproxy({ bin: install.bin, config: () => cfg });
      });
    }, 120_000);

    afterAll(async () => {
      await haproxy?.stop();
      await new Promise((r) => echo?.server.close(r));
      if (base) await rm(base, { recursive: true, force: true });
    });

    it('verify on: 400 without a certificate or with another CA’s, 200 with the right one', async () => {
      expect((await call(https, 'on.cc.test')).status).toBe(400);
      expect((await call(https, 'on.cc.test', pki.otherClient)).status).toBe(400);
      const ok = await call(https, 'on.cc.test', pki.client);
      expect(ok.status).toBe(200);
      expect(ok.seen?.['ssl-client-verify']).toBe('SUCCESS');
      expect(ok.seen?.['ssl-client-subject-dn']).toBe('CN=client,O=Org');
      expect(ok.seen?.['ssl-client-issuer-dn']).toBe('CN=test-ca');
      expect(ok.seen?.['ssl-client-cert']).toBeUndefined(); // not passed, and the forged one removed
    });

    it('never leaks a policy to another host of the listener, nor lets SNI bypass one', async () => {
      const open = await call(https, 'open.cc.test');
      expect(open.status).toBe(200);
      expect(open.seen?.['ssl-client-verify']).toBe('SUCCESS'); // the client's own header, untouched
      // SNI of the open host (no certificate asked for) with the Host of the verify-on host
      expect((await call(https, 'on.cc.test', pki.client, 'open.cc.test')).status).toBe(400);
      // SNI of another policy host: the certificate was asked for that host, not this one
      expect((await call(https, 'on.cc.test', pki.client, 'opt.cc.test')).status).toBe(400);
      // no SNI at all: no certificate was asked for
      expect((await call(https, 'on.cc.test', pki.client, '')).status).toBe(400);
    });

    it('optional: 200 without a certificate (verify NONE), 400 with an untrusted one', async () => {
      const none = await call(https, 'opt.cc.test');
      expect([none.status, none.seen?.['ssl-client-verify']]).toEqual([200, 'NONE']);
      expect(none.seen?.['ssl-client-subject-dn']).toBeUndefined();
      expect((await call(https, 'opt.cc.test', pki.otherClient)).status).toBe(400);
      expect((await call(https, 'opt.cc.test', pki.client)).status).toBe(200);
    });

    it('optional_no_ca passes an untrusted certificate, marked FAILED; off asks for none', async () => {
      const noca = await call(https, 'noca.cc.test', pki.otherClient);
      expect(noca.status).toBe(200);
      expect(noca.seen?.['ssl-client-verify']).toMatch(/^FAILED:/);
      const off = await call(https, 'off.cc.test');
      expect([off.status, off.seen?.['ssl-client-verify']]).toEqual([200, 'NONE']);
    });

    it('passes the URL-encoded PEM of the client certificate as ssl-client-cert', async () => {
      const r = await call(https, 'pass.cc.test', pki.client);
      expect(r.status).toBe(200);
      const pem = new X509Certificate(pki.client.cert).toString();
      expect(r.seen?.['ssl-client-cert']).toBe(encodeURIComponent(pem));
    });

    it('match-cn: 403 for a DN the pattern refuses, 200 for one it matches', async () => {
      expect((await call(https, 'cn.cc.test', pki.client)).status).toBe(403);
      expect((await call(https, 'cnok.cc.test', pki.client)).status).toBe(200);
    });

    it('error-page: a 302 to the page instead of the 400', async () => {
      const r = await call(https, 'err.cc.test');
      expect([r.status, r.headers['location']]).toEqual([302, 'http://error.cc.test/tls#x']);
      expect((await call(https, 'err.cc.test', pki.client)).status).toBe(200);
    });

    it('a missing CA Secret answers 503 for its host, never served open', async () => {
      expect((await call(https, 'missing.cc.test', pki.client)).status).toBe(503);
    });
  },
);
