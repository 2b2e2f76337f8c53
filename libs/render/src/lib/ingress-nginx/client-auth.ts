// Client certificates of the ingress-nginx library (auth-tls-*): a host's policy, as ingress-nginx
// keeps it per server (the oldest Ingress of the host naming auth-tls-secret sets it). HAProxy
// asks for a certificate per SNI (the host's crt-list line gets `verify optional` and the CA), so
// a policy never reaches another host of the listener; the frontend then answers 400 (or the
// error page) after the handshake, as nginx does, and 403 when the DN does not match. A missing
// or unusable CA Secret answers 503 for the host with a notice: never served open. The CA is
// public, but it is read from a Secret like the rest: no message ever quotes its content.
import { X509Certificate } from 'node:crypto';
import { objectRef } from '../snapshot.js';
import type { RenderNotice } from '../types.js';
import { field, path, str } from '../liquid-values.js';
import { NginxReader, ingressIdOf } from './reader.js';

/** ingress-nginx's verification modes. */
export type VerifyClient = 'on' | 'off' | 'optional' | 'optional_no_ca';

/** What an Ingress's auth-tls annotations ask for (checked against their grammar). */
export interface ClientAuthSpec {
  readonly namespace: string;
  readonly secret: string;
  readonly verify: VerifyClient;
  /** An absolute http(s) URL (redirect with 302 instead of the 400), or ''. */
  readonly errorPage: string;
  readonly passCert: boolean;
  /** A regular expression on the subject DN (RFC 2253, as nginx's $ssl_client_s_dn), or ''. */
  readonly matchCn: string;
}

/** The client-certificate policy of one host, as the templates read it. */
export interface ClientAuthPolicy extends ClientAuthSpec {
  readonly host: string;
  /** `namespace/name` of the Ingress that set it. */
  readonly ingress: string;
  /** The CA bundle's file (ssl storage), or '' when denied. */
  readonly ca_file: string;
  /** The CRL's file (ssl storage), or ''. */
  readonly crl_file: string;
  /** Why the host answers 503 instead, or ''. */
  readonly denied: string;
}

const NAME = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const MODES: readonly string[] = ['on', 'off', 'optional', 'optional_no_ca'];
// printable ASCII without the single quote the HAProxy pattern is written in
const PATTERN = /^[\x20-\x26\x28-\x7e]{1,1024}$/;
// a URL HAProxy writes literally in `redirect location`: no space, quote, backslash or `%`
const URL = /^https?:\/\/[A-Za-z0-9._~:/?#[\]@!$&()*+,;=-]{1,2048}$/;

/**
 * The client-certificate policy an Ingress asks for, or undefined (no `auth-tls-secret`, as in
 * ingress-nginx). Throws NginxRefusal for a value outside an annotation's grammar.
 */
export function clientAuthSpec(ing: object): ClientAuthSpec | undefined {
  const r = new NginxReader(ing, {});
  const ref = r.get('auth-tls-secret')?.trim() ?? '';
  if (ref === '') return undefined;
  const parts = ref.split('/');
  const name = parts.length === 2 ? (parts[1] ?? '') : ref;
  const namespace = parts.length === 2 ? (parts[0] ?? '') : str(path(ing, 'metadata', 'namespace'));
  if (parts.length > 2 || !NAME.test(name) || !NAME.test(namespace))
    r.fail('auth-tls-secret', `${JSON.stringify(ref)} is not a Secret name or namespace/name`);
  const verify = r.get('auth-tls-verify-client')?.trim() || 'on';
  if (!MODES.includes(verify))
    r.fail('auth-tls-verify-client', `${JSON.stringify(verify)} is not ${MODES.join(', ')}`);
  const errorPage = r.get('auth-tls-error-page')?.trim() ?? '';
  if (errorPage !== '' && !URL.test(errorPage))
    r.fail(
      'auth-tls-error-page',
      `${JSON.stringify(errorPage)} is not an http(s) URL without spaces, quotes, backslashes or %`,
    );
  const matchCn = r.get('auth-tls-match-cn') ?? '';
  if (matchCn !== '') checkPattern(r, matchCn);
  const passCert = r.flag('auth-tls-pass-certificate-to-upstream', false);
  return { namespace, secret: name, verify: verify as VerifyClient, errorPage, passCert, matchCn };
}

function checkPattern(r: NginxReader, v: string): void {
  const why = `${JSON.stringify(v)} is not a regular expression of printable text without a single quote`;
  if (!PATTERN.test(v)) r.fail('auth-tls-match-cn', why);
  try {
    new RegExp(v);
  } catch {
    r.fail('auth-tls-match-cn', why);
  }
}

/** The CA and CRL file names of a Secret (ssl storage; the Secret's name is a DNS subdomain). */
export function caFilesOf(namespace: string, secret: string): { ca: string; crl: string } {
  return { ca: `ca_${namespace}_${secret}.pem`, crl: `crl_${namespace}_${secret}.pem` };
}

function decode(v: unknown): string | undefined {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Why a CA bundle cannot be used, or undefined (every certificate of it parses). */
export function caProblem(pem: string): string | undefined {
  const certs = pem.match(PEM_CERT) ?? [];
  if (certs.length === 0) return 'has no PEM certificate in key ca.crt';
  try {
    for (const c of certs) new X509Certificate(c);
  } catch {
    return 'has a certificate in key ca.crt that does not parse';
  }
  return undefined;
}

type Lookup = ((keys: readonly string[]) => readonly object[]) | undefined;

/** The policy of one host from its Ingress's spec; a problem with its Secret denies the host. */
export function clientAuthPolicy(
  ing: object,
  host: string,
  spec: ClientAuthSpec,
  secrets: Lookup,
  notices: RenderNotice[],
): ClientAuthPolicy {
  const ingress = ingressIdOf(ing);
  const ref = `${spec.namespace}/${spec.secret}`;
  const base = { ...spec, host, ingress, ca_file: '', crl_file: '' };
  const deny = (why: string): ClientAuthPolicy => {
    const denied = `Ingress ${ingress}: client certificates: ${why}; host ${host} answers 503`;
    notices.push({ message: denied, object: objectRef('ingresses', ing) });
    return { ...base, denied };
  };
  if (spec.namespace !== str(path(ing, 'metadata', 'namespace')))
    return deny(`Secret ${ref} is in another namespace (ingress-nginx refuses that by default)`);
  const secret = secrets?.([spec.namespace, spec.secret])[0];
  if (secret === undefined) return deny(`Secret ${ref} not found`);
  const data = field(secret, 'data');
  const problem = caProblem(decode(field(data, 'ca.crt')) ?? '');
  if (problem !== undefined) return deny(`Secret ${ref} ${problem}`);
  const crl = decode(field(data, 'ca.crl'));
  if (crl !== undefined && !crl.includes('-----BEGIN X509 CRL-----'))
    return deny(`Secret ${ref} key ca.crl is not a PEM CRL`);
  const files = caFilesOf(spec.namespace, spec.secret);
  return { ...base, ca_file: files.ca, crl_file: crl === undefined ? '' : files.crl, denied: '' };
}
