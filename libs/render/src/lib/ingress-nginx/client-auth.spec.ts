import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RenderNotice } from '../types.js';
import { caProblem, clientAuthPolicy, clientAuthSpec } from './client-auth.js';
import { policyLines, tlsWithClientAuth } from './client-auth-lines.js';
import { NginxRefusal } from './reader.js';

const P = 'nginx.ingress.kubernetes.io/';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const CA = execFileSync(
  'openssl',
  ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
    '-keyout',
    '/dev/null',
    '-days',
    '1',
    '-subj',
    '/CN=unit-ca',
  ]),
  { stdio: ['ignore', 'pipe', 'ignore'] },
).toString('utf8');

const ing = (annotations: Record<string, string>) => ({
  metadata: {
    namespace: 'apps',
    name: 'web',
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  },
});
const caSecret = (data: Record<string, string>) => ({
  metadata: { namespace: 'apps', name: 'ca' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});

function policyOf(annotations: Record<string, string>, secrets: object[]) {
  const i = ing(annotations);
  const spec = clientAuthSpec(i);
  if (spec === undefined) throw new Error('no policy');
  const notices: RenderNotice[] = [];
  const policy = clientAuthPolicy(i, 'a.example', spec, () => secrets, notices);
  return { policy, notices };
}

describe('clientAuthSpec', () => {
  it('reads nothing without auth-tls-secret, and ingress-nginx defaults otherwise', () => {
    expect(clientAuthSpec(ing({ 'auth-tls-verify-client': 'on' }))).toBeUndefined();
    expect(clientAuthSpec(ing({ 'auth-tls-secret': 'ca' }))).toEqual({
      namespace: 'apps',
      secret: 'ca',
      verify: 'on',
      errorPage: '',
      passCert: false,
      matchCn: '',
    });
  });

  it('refuses values outside the grammar, naming the annotation', () => {
    const bad: Record<string, string>[] = [
      { 'auth-tls-secret': 'a/b/c' },
      { 'auth-tls-secret': 'ca', 'auth-tls-verify-client': 'required' },
      { 'auth-tls-secret': 'ca', 'auth-tls-error-page': "http://x/'a" },
      { 'auth-tls-secret': 'ca', 'auth-tls-error-page': 'http://x/%[src]' },
      { 'auth-tls-secret': 'ca', 'auth-tls-match-cn': "CN='x'" },
      { 'auth-tls-secret': 'ca', 'auth-tls-match-cn': 'CN=(' },
    ];
    for (const a of bad) {
      const name = Object.keys(a).at(-1) ?? '';
      expect(() => clientAuthSpec(ing(a)), name).toThrow(NginxRefusal);
      expect(() => clientAuthSpec(ing(a)), name).toThrow(P + name);
    }
  });
});

describe('clientAuthPolicy', () => {
  it('names the CA (and CRL) files of a usable Secret', () => {
    const crl = '-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n';
    const { policy, notices } = policyOf({ 'auth-tls-secret': 'ca' }, [
      caSecret({ 'ca.crt': CA, 'ca.crl': crl }),
    ]);
    expect(policy).toMatchObject({ ca_file: 'ca_apps_ca.pem', crl_file: 'crl_apps_ca.pem' });
    expect([policy.denied, notices]).toEqual(['', []]);
  });

  it('denies the host (503 + a notice, never the PEM) when the Secret is missing or unusable', () => {
    const cases: [Record<string, string>, object[], RegExp][] = [
      [{ 'auth-tls-secret': 'ca' }, [], /not found/],
      [{ 'auth-tls-secret': 'other/ca' }, [caSecret({ 'ca.crt': CA })], /another namespace/],
      [{ 'auth-tls-secret': 'ca' }, [caSecret({ 'tls.crt': CA })], /no PEM certificate/],
    ];
    for (const [a, secrets, why] of cases) {
      const { policy, notices } = policyOf(a, secrets);
      expect(policy.denied).toMatch(why);
      expect(notices.map((n) => n.message)).toEqual([policy.denied]);
      expect(policyLines(policy)).toEqual([
        'http-request deny deny_status 503 if { var(txn.host) -m str a.example }',
      ]);
    }
    expect(caProblem(CA.replace(/[A-Za-z]{8}\n/, '!!!!!!!!\n'))).toMatch(/does not parse/);
  });
});

describe('policy lines and crt-list entries', () => {
  it('asks 400 of a verify-on host without its own verified certificate, and replaces client headers', () => {
    const { policy } = policyOf({ 'auth-tls-secret': 'ca' }, [caSecret({ 'ca.crt': CA })]);
    const lines = policyLines(policy);
    expect(lines[0]).toBe(
      'http-request deny deny_status 400 if { var(txn.host) -m str a.example } { ssl_fc } !{ var(txn.nginx_cc_ok) -m bool }',
    );
    expect(lines).toContain(
      'http-request del-header ssl-client-cert if { var(txn.host) -m str a.example }',
    );
  });

  it('puts a policy host on a crt-list entry of its own; the others keep the entry', () => {
    const { policy } = policyOf({ 'auth-tls-secret': 'ca' }, [caSecret({ 'ca.crt': CA })]);
    const entry = {
      ingress: {},
      namespace: 'apps',
      secret: 'tls',
      hosts: ['a.example', 'b.example'],
    };
    const split = tlsWithClientAuth([entry], new Map([['a.example', policy]]));
    expect(split.map((t) => [t.hosts, t.client_auth?.ca_file])).toEqual([
      [['b.example'], undefined],
      [['a.example'], 'ca_apps_ca.pem'],
    ]);
    // the same objects while nothing changes (fragments are cached by identity)
    const again = tlsWithClientAuth([entry], new Map([['a.example', policy]]));
    expect([again[0], again[1]]).toEqual([split[0], split[1]]);
    expect(again[1]).toBe(split[1]);
    expect(tlsWithClientAuth([entry], new Map())[0]).toBe(entry);
  });
});
