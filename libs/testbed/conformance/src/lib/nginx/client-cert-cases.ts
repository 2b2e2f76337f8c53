import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '#testbed/kube-sim';
import { NS, get, host, ingress, type NginxCase, type Step } from './cases.js';
import type { Req } from './http.js';

// Client certificates (auth-tls-*) as ingress-nginx's authtls e2e test and its client-certs
// example give them, through the demo topology: a request without a certificate, with one another
// CA signed, or with a revoked one, on a verify-on host gets an HTTP 400 after the handshake; the
// upstream gets ingress-nginx's ssl-client-* headers; another host on the same listener asks for no
// certificate, and SNI (or none) never carries one host's policy to another.

interface Pair {
  readonly cert: string;
  readonly key: string;
}

/** The suite's client PKI: a CA with a CRL, a client it signed, one it revoked, a stranger's. */
interface Pki {
  readonly ca: string;
  readonly crl: string;
  readonly client: Pair;
  readonly revoked: Pair;
  /** Self-signed, with the client's subject: another issuer. */
  readonly stranger: Pair;
}

const CA_CONFIG = `[ ca ]
default_ca = suite
[ suite ]
database = index.txt
crlnumber = crlnumber
default_md = sha256
default_crl_days = 30
`;

function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-nginx-pki-'));
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const days = ['-days', '30'];
  try {
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      ...days,
      '-subj',
      '/CN=nginx-suite-ca',
    );
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'stranger.key',
      '-out',
      'stranger.crt',
      ...days,
      '-subj',
      '/O=Org/CN=client',
    );
    for (const name of ['client', 'revoked']) {
      ssl(
        'req',
        ...ec,
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        `/O=Org/CN=${name}`,
      );
      ssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        ...days,
      );
    }
    writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'crlnumber'), '01\n');
    const ca = ['-config', 'ca.cnf', '-keyfile', 'ca.key', '-cert', 'ca.crt'];
    ssl('ca', ...ca, '-revoke', 'revoked.crt');
    ssl('ca', ...ca, '-gencrl', '-out', 'ca.crl');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const pair = (n: string): Pair => ({ cert: read(`${n}.crt`), key: read(`${n}.key`) });
    return {
      ca: read('ca.crt'),
      crl: read('ca.crl'),
      client: pair('client'),
      revoked: pair('revoked'),
      stranger: pair('stranger'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let made: Pki | undefined;
/** Made with `openssl` when a case first needs it (not when the suite is only listed). */
const pki = (): Pki => (made ??= makePki());

const b64 = (s: string) => Buffer.from(s).toString('base64');
const CA_SECRET = 'client-ca';
const caSecret = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace: NS, name: CA_SECRET },
  type: 'Opaque',
  data: { 'ca.crt': b64(pki().ca), 'ca.crl': b64(pki().crl) },
});
const withCa = (more: Readonly<Record<string, string>> = {}) => ({
  'auth-tls-secret': `${NS}/${CA_SECRET}`,
  ...more,
});

type Who = 'client' | 'revoked' | 'stranger' | undefined;
/** An HTTPS request to `h` with the named client certificate (none when undefined). */
const tlsGet = (h: string, who: Who, more: Partial<Req> = {}): Req =>
  get(h, '/', { https: true, ...(who ? { clientCert: pki()[who] } : {}), ...more });

const onHost = host('cc-on');
const isoHost = host('cc-iso');
const openHost = host('cc-open');
const optHost = host('cc-optional');
const nocaHost = host('cc-noca');
const offHost = host('cc-off');
const passHost = host('cc-pass');
const cnHost = host('cc-cn');
const cnOkHost = host('cc-cn-ok');
const errHost = host('cc-error-page');
const ERROR_PAGE = 'https://login.example.com/cert-needed?from=cc';

const SUCCESS = {
  'Ssl-Client-Verify': 'SUCCESS',
  'Ssl-Client-Subject-Dn': 'CN=client,O=Org',
  'Ssl-Client-Issuer-Dn': 'CN=nginx-suite-ca',
};

export const CLIENT_CERT_CASES: readonly NginxCase[] = [
  {
    name: 'auth-tls-verify-client on: 200 with the CA’s client certificate and the ssl-client-* headers; 400 without one, with another CA’s or a revoked one',
    annotations: ['auth-tls-secret', 'auth-tls-verify-client'],
    get objects() {
      return [
        caSecret(),
        ingress('cc-on', onHost, [['/']], withCa({ 'auth-tls-verify-client': 'on' }), {
          tls: true,
        }),
      ];
    },
    get steps(): Step[] {
      return [
        {
          req: tlsGet(onHost, 'client', { headers: { 'ssl-client-verify': 'forged' } }),
          expect: {
            status: 200,
            service: 'echo',
            backendHeaders: { ...SUCCESS, 'Ssl-Client-Cert': null },
          },
        },
        { req: tlsGet(onHost, undefined), expect: { status: 400 } },
        { req: tlsGet(onHost, 'stranger'), expect: { status: 400 } },
        { req: tlsGet(onHost, 'revoked'), expect: { status: 400 } },
      ];
    },
  },
  {
    name: 'client certificates per host: another host of the listener asks for none; the SNI of another host, or none, gets 400 on the verify-on host',
    annotations: ['auth-tls-secret'],
    get objects() {
      return [
        caSecret(),
        // (the marker's Ingress last: once it is served, so is the other)
        ingress('cc-open', openHost, [['/']], {}, { tls: true }),
        ingress('cc-iso', isoHost, [['/']], withCa(), { tls: true }),
      ];
    },
    get steps(): Step[] {
      return [
        {
          req: tlsGet(isoHost, 'client'),
          expect: { status: 200, service: 'echo', backendHeaders: SUCCESS },
        },
        { req: tlsGet(openHost, undefined), expect: { status: 200, service: 'echo' } },
        { req: tlsGet(isoHost, 'client', { sni: openHost }), expect: { status: 400 } },
        { req: tlsGet(isoHost, 'client', { sni: '' }), expect: { status: 400 } },
      ];
    },
  },
  {
    name: 'auth-tls-verify-client optional, optional_no_ca and off: what passes and what the upstream is told',
    annotations: ['auth-tls-verify-client'],
    get objects() {
      return [
        caSecret(),
        ingress('cc-optional', optHost, [['/']], withCa({ 'auth-tls-verify-client': 'optional' }), {
          tls: true,
        }),
        ingress(
          'cc-noca',
          nocaHost,
          [['/']],
          withCa({ 'auth-tls-verify-client': 'optional_no_ca' }),
          { tls: true },
        ),
        ingress('cc-off', offHost, [['/']], withCa({ 'auth-tls-verify-client': 'off' }), {
          tls: true,
        }),
      ];
    },
    get steps(): Step[] {
      const none = { 'Ssl-Client-Verify': 'NONE', 'Ssl-Client-Subject-Dn': null };
      return [
        {
          req: tlsGet(offHost, undefined),
          expect: { status: 200, service: 'echo', backendHeaders: none },
        },
        {
          req: tlsGet(optHost, undefined),
          expect: { status: 200, service: 'echo', backendHeaders: none },
        },
        { req: tlsGet(optHost, 'client'), expect: { status: 200, backendHeaders: SUCCESS } },
        { req: tlsGet(optHost, 'stranger'), expect: { status: 400 } },
        {
          req: tlsGet(nocaHost, 'stranger'),
          expect: { status: 200, backendHeaders: { 'Ssl-Client-Verify': /^FAILED:/ } },
        },
        { req: tlsGet(nocaHost, 'client'), expect: { status: 200, backendHeaders: SUCCESS } },
      ];
    },
  },
  {
    name: 'auth-tls-pass-certificate-to-upstream: the upstream gets the client certificate as ssl-client-cert, URL-encoded PEM',
    annotations: ['auth-tls-pass-certificate-to-upstream'],
    get objects() {
      return [
        caSecret(),
        ingress(
          'cc-pass',
          passHost,
          [['/']],
          withCa({ 'auth-tls-pass-certificate-to-upstream': 'true' }),
          { tls: true },
        ),
      ];
    },
    get steps(): Step[] {
      const pem = new X509Certificate(pki().client.cert).toString();
      return [
        {
          req: tlsGet(passHost, 'client', { headers: { 'ssl-client-cert': 'forged' } }),
          expect: {
            status: 200,
            service: 'echo',
            backendHeaders: { 'Ssl-Client-Cert': encodeURIComponent(pem) },
          },
        },
      ];
    },
  },
  {
    name: 'auth-tls-match-cn: 403 for a subject the pattern refuses, 200 for one it matches',
    annotations: ['auth-tls-match-cn'],
    get objects() {
      return [
        caSecret(),
        ingress('cc-cn', cnHost, [['/']], withCa({ 'auth-tls-match-cn': 'CN=nomatch' }), {
          tls: true,
        }),
        ingress(
          'cc-cn-ok',
          cnOkHost,
          [['/']],
          withCa({ 'auth-tls-match-cn': '^CN=client,O=Org$' }),
          { tls: true },
        ),
      ];
    },
    get steps(): Step[] {
      return [
        { req: tlsGet(cnOkHost, 'client'), expect: { status: 200, service: 'echo' } },
        { req: tlsGet(cnHost, 'client'), expect: { status: 403 } },
      ];
    },
  },
  {
    name: 'auth-tls-error-page: a failed verification redirects (302) to the page; a valid certificate is served',
    annotations: ['auth-tls-error-page'],
    get objects() {
      return [
        caSecret(),
        ingress('cc-error-page', errHost, [['/']], withCa({ 'auth-tls-error-page': ERROR_PAGE }), {
          tls: true,
        }),
      ];
    },
    get steps(): Step[] {
      return [
        { req: tlsGet(errHost, 'client'), expect: { status: 200, service: 'echo' } },
        {
          req: tlsGet(errHost, undefined),
          expect: { status: 302, headers: { Location: ERROR_PAGE } },
        },
        {
          req: tlsGet(errHost, 'revoked'),
          expect: { status: 302, headers: { Location: ERROR_PAGE } },
        },
      ];
    },
  },
];
