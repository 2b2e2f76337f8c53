import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RenderNotice } from '../types.js';
import { proxySslNotices, proxySslOf, proxySslSpec } from './proxy-ssl.js';

const P = 'nginx.ingress.kubernetes.io/';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'proxy-ssl-spec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A self-signed certificate and its key (openssl, as the other certificate tests). */
function pair(cn: string): { cert: string; key: string } {
  const [crt, key] = [join(dir, `${cn}.crt`), join(dir, `${cn}.key`)];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', key, '-out', crt, '-days', '2', '-subj', `/CN=${cn}`],
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(crt, 'utf8'), key: readFileSync(key, 'utf8') };
}
const backend = pair('backend.svc');
const client = pair('client');

const ing = (annotations: Record<string, string>) => ({
  metadata: {
    namespace: 'apps',
    name: 'web',
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  },
});
const secret = (name: string, data: Record<string, string>, ns = 'apps') => ({
  kind: 'Secret',
  metadata: { namespace: ns, name },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const lookupIn =
  (...secrets: object[]) =>
  ([ns, name]: readonly string[]) =>
    secrets.filter((s) => {
      const m = (s as { metadata: { namespace: string; name: string } }).metadata;
      return m.namespace === ns && m.name === name;
    });
const messages = (n: readonly RenderNotice[]) => n.map((x) => x.message);

describe('proxySslSpec', () => {
  it('is nothing without proxy-ssl-secret, whatever else is set', () => {
    expect(proxySslSpec(ing({ 'proxy-ssl-verify': 'on' }), [])).toBeUndefined();
  });

  it("takes ingress-nginx's defaults: verify off, depth 1, upstream_balancer, no SNI, TLSv1-TLSv1.2, DEFAULT", () => {
    const notices: RenderNotice[] = [];
    expect(proxySslSpec(ing({ 'proxy-ssl-secret': 'apps/ca' }), notices)).toEqual({
      ref: 'apps/ca',
      verify: false,
      depth: 1,
      name: 'upstream_balancer',
      serverName: false,
      minVer: 'TLSv1.0',
      maxVer: 'TLSv1.2',
      ciphers: 'DEFAULT',
    });
    expect(notices).toEqual([]);
  });

  it('reads the values and the range of the protocols named', () => {
    const spec = proxySslSpec(
      ing({
        'proxy-ssl-secret': 'apps/ca',
        'proxy-ssl-verify': 'on',
        'proxy-ssl-verify-depth': '2',
        'proxy-ssl-name': 'backend.svc',
        'proxy-ssl-server-name': 'on',
        'proxy-ssl-protocols': 'TLSv1.3 TLSv1.2',
        'proxy-ssl-ciphers': 'HIGH:!AES',
      }),
      [],
    );
    expect(spec).toMatchObject({
      verify: true,
      depth: 2,
      name: 'backend.svc',
      serverName: true,
      minVer: 'TLSv1.2',
      maxVer: 'TLSv1.3',
      ciphers: 'HIGH:!AES',
    });
  });

  it('replaces a bad value by the default with a notice naming the Ingress and the annotation, never the value rendered', () => {
    const notices: RenderNotice[] = [];
    const spec = proxySslSpec(
      ing({
        'proxy-ssl-secret': 'apps/ca',
        'proxy-ssl-verify': 'yes',
        'proxy-ssl-verify-depth': 'deep',
        'proxy-ssl-name': 'bad name"; x',
        'proxy-ssl-protocols': 'TLSv1.4',
        'proxy-ssl-ciphers': 'NOT-A-CIPHER',
      }),
      notices,
    );
    expect(spec).toMatchObject({
      verify: false,
      depth: 1,
      name: 'upstream_balancer',
      minVer: 'TLSv1.0',
      maxVer: 'TLSv1.2',
      ciphers: 'DEFAULT',
    });
    const m = messages(notices);
    for (const a of ['verify', 'verify-depth', 'name', 'protocols', 'ciphers'])
      expect(
        m.some((x) => x.startsWith(`Ingress apps/web: annotation ${P}proxy-ssl-${a}: `)),
        a,
      ).toBe(true);
    expect(m.join('\n')).not.toMatch(/NOT-A-CIPHER|TLSv1\.4|bad name/);
    // a cipher list with a character outside OpenSSL's grammar
    const odd: RenderNotice[] = [];
    expect(
      proxySslSpec(ing({ 'proxy-ssl-secret': 'apps/ca', 'proxy-ssl-ciphers': 'HIGH ciphers' }), odd)
        ?.ciphers,
    ).toBe('DEFAULT');
    expect(messages(odd)).toHaveLength(1);
  });
});

describe('proxySslOf', () => {
  const of = (annotations: Record<string, string>, ...secrets: object[]) => {
    const notices: RenderNotice[] = [];
    const i = ing(annotations);
    const spec = proxySslSpec(i, notices);
    if (spec === undefined) throw new Error('no proxy-ssl-secret');
    return { ssl: proxySslOf(i, spec, lookupIn(...secrets), notices), notices };
  };

  it('gives the CA file of ca.crt and the client certificate file of tls.crt with tls.key', () => {
    const { ssl, notices } = of(
      { 'proxy-ssl-secret': 'apps/mtls' },
      secret('mtls', { 'ca.crt': backend.cert, 'tls.crt': client.cert, 'tls.key': client.key }),
    );
    expect(notices).toEqual([]);
    expect(ssl.denied).toBeUndefined();
    expect(ssl.ca).toEqual({ name: 'proxyssl_ca_apps_mtls.pem', content: backend.cert });
    expect(ssl.crt?.name).toBe('proxyssl_crt_apps_mtls.pem');
    expect(ssl.crt?.content).toContain(client.cert.trim());
    expect(ssl.crt?.content).toContain(client.key.trim());
    const caOnly = of(
      { 'proxy-ssl-secret': 'apps/ca' },
      secret('ca', { 'ca.crt': backend.cert }),
    ).ssl;
    expect([caOnly.ca?.name, caOnly.crt]).toEqual(['proxyssl_ca_apps_ca.pem', undefined]);
  });

  it('denies (503) a Secret missing, elsewhere, unusable or not named namespace/name, without quoting its content', () => {
    const cases: [Record<string, string>, object[], RegExp][] = [
      [{ 'proxy-ssl-secret': 'apps/none' }, [], /Secret apps\/none not found/],
      [
        { 'proxy-ssl-secret': 'other/ca' },
        [secret('ca', { 'ca.crt': backend.cert }, 'other')],
        /another namespace/,
      ],
      [
        { 'proxy-ssl-secret': 'ca' },
        [secret('ca', { 'ca.crt': backend.cert })],
        /is not namespace\/name/,
      ],
      [
        { 'proxy-ssl-secret': 'apps/empty' },
        [secret('empty', { auth: 'x' })],
        /no tls\.crt\/tls\.key pair or ca\.crt/,
      ],
      [
        { 'proxy-ssl-secret': 'apps/bad' },
        [secret('bad', { 'ca.crt': 'garbage-ca' })],
        /ca\.crt that is not/,
      ],
      [
        { 'proxy-ssl-secret': 'apps/mismatch' },
        [secret('mismatch', { 'tls.crt': client.cert, 'tls.key': backend.key })],
        /not a certificate with its key/,
      ],
    ];
    for (const [a, secrets, why] of cases) {
      const { ssl, notices } = of(a, ...secrets);
      expect(ssl.denied, JSON.stringify(a)).toMatch(why);
      expect(ssl.denied).toMatch(/its locations answer 503$/);
      expect(messages(notices)).toEqual([ssl.denied]);
      expect(ssl.denied).not.toMatch(/BEGIN|garbage/);
    }
  });
});

describe('proxySslNotices', () => {
  it('notes proxy-ssl-secret without effect on a backend that is not HTTPS or GRPCS', () => {
    const s = secret('ca', { 'ca.crt': backend.cert });
    const http = proxySslNotices(ing({ 'proxy-ssl-secret': 'apps/ca' }), lookupIn(s));
    expect(messages(http)).toEqual([expect.stringMatching(/proxy-ssl-secret is without effect/)]);
    const https = ing({ 'proxy-ssl-secret': 'apps/ca', 'backend-protocol': 'https' });
    expect(proxySslNotices(https, lookupIn(s))).toEqual([]);
  });
});
