// haproxy.cfg lines of client certificates (client-auth.ts). The handshake only asks for a
// certificate on the SNI of a host with a policy (its crt-list line); the frontend then judges
// the request by its Host, and counts a certificate as this host's only when the SNI it was asked
// for is that Host: a client sending another host's SNI (no certificate asked, or another CA)
// never passes a host's check. Failures answer as nginx does after the handshake: 400 (or a 302
// to auth-tls-error-page), 403 for a DN auth-tls-match-cn refuses, 503 for a host whose CA Secret
// is missing. The upstream gets ingress-nginx's ssl-client-* headers (client values replaced).
import type { Context } from 'liquidjs';
import { OutputLines, escapeLine } from '../escaper.js';
import { hostnameProblem } from '../filters-haproxy.js';
import { items } from '../liquid-values.js';
import type { IngressTls } from '../ingress/joins.js';
import type { ClientAuthPolicy } from './client-auth.js';

type FilterThis = { context: Context };

const USED = '{ var(txn.nginx_cc_used) -m bool }';
const OK = '{ var(txn.nginx_cc_ok) -m bool }';

/** The certificate checks shared by every policy (the SNI the certificate was asked for = Host). */
const COMMON = [
  'http-request set-var(txn.nginx_cc_sni) ssl_fc_sni,lower if { ssl_fc_has_sni }',
  'http-request set-var(txn.nginx_cc_used) bool(true) if { ssl_c_used } { var(txn.host),strcmp(txn.nginx_cc_sni) eq 0 }',
  `http-request set-var(txn.nginx_cc_ok) bool(true) if ${USED} { ssl_c_verify 0 }`,
];

/** The URL-encoded PEM of the client certificate (nginx's $ssl_client_escaped_cert). */
const PEM = [
  `http-request set-var(txn.nginx_cc_pem) 'ssl_c_der,base64,regsub("(.{1,64})","\\1!",g),url_enc,regsub(%21,%0A,g)'`,
  `http-request set-var(txn.nginx_cc_pem) str(-----BEGIN%20CERTIFICATE-----%0A),concat(,txn.nginx_cc_pem,-----END%20CERTIFICATE-----%0A)`,
];

/** The host condition of a policy (a wildcard host matches the request's wildcard form). */
function hostAcl(host: string): string {
  const name = host.toLowerCase();
  const problem = hostnameProblem(name.startsWith('*.') ? name.slice(2) : name);
  if (problem !== undefined) throw new Error(`client certificates: host ${name} ${problem}`);
  return `{ var(${name.startsWith('*.') ? 'txn.wchost' : 'txn.host'}) -m str ${name} }`;
}

/** When a request of the host fails verification (over TLS; undefined: never, verify off). */
function failure(p: ClientAuthPolicy, h: string): string | undefined {
  if (p.verify === 'on') return `${h} { ssl_fc } !${OK}`;
  if (p.verify === 'optional') return `${h} { ssl_fc } { ssl_c_used } !${OK}`;
  if (p.verify === 'optional_no_ca') return `${h} { ssl_fc } { ssl_c_used } !${USED}`;
  return undefined;
}

function headerLines(p: ClientAuthPolicy, h: string): string[] {
  const lines = [
    `http-request set-header ssl-client-verify NONE if ${h}`,
    `http-request set-header ssl-client-verify SUCCESS if ${h} ${OK}`,
    `http-request set-header ssl-client-verify FAILED:%[ssl_c_verify] if ${h} ${USED} !${OK}`,
  ];
  for (const [name, fetch] of [
    ['ssl-client-subject-dn', 'ssl_c_s_dn(,0,rfc2253)'],
    ['ssl-client-issuer-dn', 'ssl_c_i_dn(,0,rfc2253)'],
  ] as const) {
    lines.push(`http-request del-header ${name} if ${h}`);
    lines.push(`http-request set-header ${name} %[${fetch}] if ${h} ${USED}`);
  }
  lines.push(`http-request del-header ssl-client-cert if ${h}`);
  if (p.passCert) {
    lines.push(...PEM.map((l) => `${l} if ${h} ${USED}`));
    lines.push(`http-request set-header ssl-client-cert %[var(txn.nginx_cc_pem)] if ${h} ${USED}`);
  }
  return lines;
}

/** The lines of one host's policy. */
export function policyLines(p: ClientAuthPolicy): string[] {
  const h = hostAcl(p.host);
  if (p.denied !== '') return [`http-request deny deny_status 503 if ${h}`];
  const lines: string[] = [];
  const fail = failure(p, h);
  if (fail !== undefined)
    lines.push(
      p.errorPage !== ''
        ? `http-request redirect location '${p.errorPage}' code 302 if ${fail}`
        : `http-request deny deny_status 400 if ${fail}`,
    );
  if (p.matchCn !== '') {
    lines.push(`http-request deny deny_status 403 if ${h} !${USED}`);
    lines.push(
      `http-request deny deny_status 403 if ${h} !{ ssl_c_s_dn(,0,rfc2253) -m reg -- '${p.matchCn}' }`,
    );
  }
  return [...lines, ...headerLines(p, h)];
}

/**
 * `nginx.client_auth | nginx_client_auth`: the frontend lines of every host's client-certificate
 * policy (after `txn.host` is set), one per line after `\n  `; nothing without a policy.
 */
export function nginxClientAuth(this: FilterThis, policies: unknown): OutputLines {
  const list = items(policies) as ClientAuthPolicy[];
  if (list.length === 0) return new OutputLines([], '');
  const q = { context: this.context };
  const lines = [...COMMON, ...list.flatMap(policyLines)];
  return new OutputLines(
    lines.map((l) => escapeLine.call(q, l)),
    '\n  ',
  );
}

/** A spec.tls entry as the library's crt-list reads it: its SNI options for one policy host. */
export interface NginxTls extends IngressTls {
  /** `verify optional ca-file … [crl-file …]` (file names, the template adds the paths), or absent. */
  readonly client_auth?: {
    readonly namespace: string;
    readonly secret: string;
    readonly ca_file: string;
    readonly crl_file: string;
  };
}

const SPLIT = new WeakMap<IngressTls, { key: string; out: readonly NginxTls[] }>();

/**
 * The spec.tls entries with each host that has a certificate policy on a line of its own (its
 * crt-list options), the others as they were; the same objects while nothing changes.
 */
export function tlsWithClientAuth(
  tls: readonly IngressTls[],
  byHost: ReadonlyMap<string, ClientAuthPolicy>,
): NginxTls[] {
  if (byHost.size === 0) return [...tls];
  return tls.flatMap((t) => {
    const asked = (h: unknown) => {
      const p = byHost.get(String(h).toLowerCase());
      return p !== undefined && p.denied === '' && p.verify !== 'off' ? p : undefined;
    };
    const key = t.hosts.map((h) => asked(h)?.ca_file ?? '').join('\u0000');
    const known = SPLIT.get(t);
    if (known?.key === key) return known.out;
    const plain = t.hosts.filter((h) => asked(h) === undefined);
    const out: NginxTls[] = plain.length === t.hosts.length ? [t] : [];
    if (out.length === 0 && plain.length > 0) out.push({ ...t, hosts: plain });
    for (const h of t.hosts) {
      const p = asked(h);
      if (p)
        out.push({
          ...t,
          hosts: [h],
          client_auth: {
            namespace: p.namespace,
            secret: p.secret,
            ca_file: p.ca_file,
            crl_file: p.crl_file,
          },
        });
    }
    SPLIT.set(t, { key, out });
    return out;
  });
}
