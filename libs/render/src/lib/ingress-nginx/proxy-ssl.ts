// Backend TLS of the ingress-nginx library (proxy-ssl-*), read with ingress-nginx's semantics:
// everything hangs on proxy-ssl-secret (namespace/name of a Secret in the Ingress's namespace
// holding ca.crt and/or tls.crt+tls.key; without it the other proxy-ssl-* annotations do nothing).
// A Secret that is missing, in another namespace or without a key pair or CA denies the Ingress's
// locations (503), as ingress-nginx's denied location. The CA-bound settings (verify, depth,
// protocols, ciphers) apply only with a ca.crt, as nginx writes them only then. A value outside an
// annotation's grammar falls back to ingress-nginx's default with a notice naming the Ingress and
// the annotation, never rendered. Secret material is never quoted in a message.
import { createSecureContext } from 'node:tls';
import { certificateProblem } from '../certificates.js';
import { objectRef } from '../snapshot.js';
import type { RenderNotice } from '../types.js';
import { field, isNil, path, str } from '../liquid-values.js';
import { ingressIdOf } from './reader.js';
import { NGINX_PREFIX } from './catalogue-types.js';

/** The TLS versions HAProxy's ssl-min-ver/ssl-max-ver name, in order (nginx's names as keys). */
const VERSIONS: readonly (readonly [string, string])[] = [
  ['SSLv3', 'SSLv3'],
  ['TLSv1', 'TLSv1.0'],
  ['TLSv1.1', 'TLSv1.1'],
  ['TLSv1.2', 'TLSv1.2'],
  ['TLSv1.3', 'TLSv1.3'],
];
const DEFAULT_PROTOCOLS = 'TLSv1 TLSv1.1 TLSv1.2';
const DEFAULT_CIPHERS = 'DEFAULT';
/** nginx's $proxy_host: ingress-nginx proxies to `https://upstream_balancer`. */
export const DEFAULT_SSL_NAME = 'upstream_balancer';
const PROTOCOLS = /^(SSLv2|SSLv3|TLSv1|TLSv1\.1|TLSv1\.2|TLSv1\.3| )*$/;
const CIPHERS = /^[A-Za-z0-9+:_!-]{1,1024}$/;
const ON_OFF = /^(on|off)$/;
const DEPTH = /^[0-9]{1,4}$/;
const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const NAME = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/** What an Ingress's proxy-ssl-* annotations ask for, each checked against its grammar. */
export interface ProxySslSpec {
  /** The annotation as written (namespace/name), for messages. */
  readonly ref: string;
  readonly verify: boolean;
  readonly depth: number;
  /** The name checked against the backend's certificate and sent as SNI. */
  readonly name: string;
  readonly serverName: boolean;
  readonly minVer: string;
  readonly maxVer: string;
  readonly ciphers: string;
}

/** The backend TLS of one Ingress: its spec and the PEM files its Secret gives, or why denied. */
export interface ProxySsl {
  readonly spec: ProxySslSpec;
  /** `{ name, content }` of the CA bundle (ca.crt), when the Secret has one. */
  readonly ca: { readonly name: string; readonly content: string } | undefined;
  /** `{ name, content }` of the client certificate with its key, when the Secret has both. */
  readonly crt: { readonly name: string; readonly content: string } | undefined;
  /** Why the locations answer 503 instead, or undefined. */
  readonly denied: string | undefined;
}

type Note = (annotation: string, why: string) => void;

function ann(ing: object, name: string): string | undefined {
  const v = field(path(ing, 'metadata', 'annotations'), NGINX_PREFIX + name);
  return isNil(v) ? undefined : str(v).trim();
}

/** ssl-min-ver/ssl-max-ver of an nginx protocol list (SSLv2, which HAProxy lacks, left out). */
function versions(v: string): [string, string] | undefined {
  const idx = v
    .split(' ')
    .map((p) => VERSIONS.findIndex(([n]) => n === p))
    .filter((i) => i >= 0);
  if (idx.length === 0) return undefined;
  const lo = VERSIONS[Math.min(...idx)]?.[1] ?? '';
  const hi = VERSIONS[Math.max(...idx)]?.[1] ?? '';
  return [lo, hi];
}

/** Whether OpenSSL (Node's) knows at least one cipher of the list: HAProxy refuses a list that names none. */
function knownCiphers(v: string): boolean {
  try {
    createSecureContext({ ciphers: v });
    return true;
  } catch {
    return false;
  }
}

function protocolsOf(ing: object, note: Note): [string, string] {
  const fallback = versions(DEFAULT_PROTOCOLS) ?? ['TLSv1.0', 'TLSv1.2'];
  const v = ann(ing, 'proxy-ssl-protocols');
  if (v === undefined || v === '') return fallback;
  const found = PROTOCOLS.test(v) ? versions(v) : undefined;
  if (found !== undefined) return found;
  note(
    'proxy-ssl-protocols',
    `is not a list of SSLv3, TLSv1, TLSv1.1, TLSv1.2, TLSv1.3; the default ${DEFAULT_PROTOCOLS} is used`,
  );
  return fallback;
}

function ciphersOf(ing: object, note: Note): string {
  const v = ann(ing, 'proxy-ssl-ciphers');
  if (v === undefined || v === '') return DEFAULT_CIPHERS;
  if (CIPHERS.test(v) && knownCiphers(v)) return v;
  note(
    'proxy-ssl-ciphers',
    `is not an OpenSSL cipher list; the default ${DEFAULT_CIPHERS} is used`,
  );
  return DEFAULT_CIPHERS;
}

function onOff(ing: object, name: string, note: Note): boolean {
  const v = ann(ing, name);
  if (v === undefined || v === '') return false;
  if (!ON_OFF.test(v)) note(name, 'is not on or off; off is used');
  return v === 'on';
}

function depthOf(ing: object, note: Note): number {
  const v = ann(ing, 'proxy-ssl-verify-depth');
  if (v === undefined || v === '') return 1;
  if (!DEPTH.test(v)) {
    note('proxy-ssl-verify-depth', 'is not a whole number; 1 is used');
    return 1;
  }
  return Number(v) === 0 ? 1 : Number(v);
}

function nameOf(ing: object, note: Note): string {
  const v = ann(ing, 'proxy-ssl-name');
  if (v === undefined || v === '') return DEFAULT_SSL_NAME;
  if (HOSTNAME.test(v)) return v;
  note('proxy-ssl-name', `is not a host name; ${DEFAULT_SSL_NAME} (nginx's default) is used`);
  return DEFAULT_SSL_NAME;
}

/**
 * The backend TLS an Ingress asks for, or undefined without proxy-ssl-secret; values outside
 * their grammar noted (`notices`) and replaced by ingress-nginx's defaults.
 */
export function proxySslSpec(ing: object, notices: RenderNotice[]): ProxySslSpec | undefined {
  const ref = ann(ing, 'proxy-ssl-secret');
  if (ref === undefined || ref === '') return undefined;
  const note: Note = (annotation, why) => {
    notices.push({
      message: `Ingress ${ingressIdOf(ing)}: annotation ${NGINX_PREFIX}${annotation}: ${why}`,
      object: objectRef('ingresses', ing),
    });
  };
  const [minVer, maxVer] = protocolsOf(ing, note);
  return {
    ref,
    verify: onOff(ing, 'proxy-ssl-verify', note),
    depth: depthOf(ing, note),
    name: nameOf(ing, note),
    serverName: onOff(ing, 'proxy-ssl-server-name', note),
    minVer,
    maxVer,
    ciphers: ciphersOf(ing, note),
  };
}

function decode(v: unknown): string | undefined {
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined;
}

type Secrets = (keys: readonly string[]) => readonly object[];

/** The CA and client-certificate files of the Secret, or why the Secret cannot serve. */
function filesOf(secret: object, ns: string, name: string) {
  const data = field(secret, 'data');
  const ca = decode(field(data, 'ca.crt'));
  const cert = decode(field(data, 'tls.crt'));
  const key = decode(field(data, 'tls.key'));
  const base = `${ns}_${name}.pem`;
  const pair = cert !== undefined && key !== undefined && cert !== '' && key !== '';
  if (!pair && (ca === undefined || ca === '')) return 'holds no tls.crt/tls.key pair or ca.crt';
  if (ca !== undefined && ca !== '' && certificateProblem(ca) !== undefined)
    return 'has a ca.crt that is not a PEM certificate bundle';
  const crtPem = pair ? `${cert.endsWith('\n') ? cert : `${cert}\n`}${key}` : undefined;
  if (crtPem !== undefined && certificateProblem(crtPem) !== undefined)
    return 'has a tls.crt/tls.key that is not a certificate with its key';
  return {
    ca: ca === undefined || ca === '' ? undefined : { name: `proxyssl_ca_${base}`, content: ca },
    crt: crtPem === undefined ? undefined : { name: `proxyssl_crt_${base}`, content: crtPem },
  };
}

/** The backend TLS of one served Ingress (`secrets` looks a Secret up), its notices pushed to `notices`. */
export function proxySslOf(
  ing: object,
  spec: ProxySslSpec,
  secrets: Secrets | undefined,
  notices: RenderNotice[],
): ProxySsl {
  const own = str(path(ing, 'metadata', 'namespace'));
  const deny = (why: string): ProxySsl => {
    const denied = `Ingress ${ingressIdOf(ing)}: annotation ${NGINX_PREFIX}proxy-ssl-secret: ${why}; its locations answer 503`;
    notices.push({ message: denied, object: objectRef('ingresses', ing) });
    return { spec, ca: undefined, crt: undefined, denied };
  };
  const parts = spec.ref.split('/');
  const [ns = '', name = ''] = parts;
  if (parts.length !== 2 || !NAME.test(ns) || !NAME.test(name))
    return deny(`${JSON.stringify(spec.ref)} is not namespace/name of a Secret`);
  if (ns !== own)
    return deny(
      `Secret ${spec.ref} is in another namespace (ingress-nginx refuses that by default)`,
    );
  const secret = secrets?.([ns, name])[0];
  if (secret === undefined) return deny(`Secret ${spec.ref} not found`);
  const files = filesOf(secret, ns, name);
  if (typeof files === 'string') return deny(`Secret ${spec.ref} ${files}`);
  return { spec, ...files, denied: undefined };
}

/**
 * Every notice of an Ingress's backend TLS (values replaced by defaults, a Secret that cannot
 * serve, settings without effect on a backend that is not HTTPS or GRPCS).
 */
export function proxySslNotices(ing: object, secrets: Secrets | undefined): RenderNotice[] {
  const notices: RenderNotice[] = [];
  const spec = proxySslSpec(ing, notices);
  if (spec === undefined) return notices;
  proxySslOf(ing, spec, secrets, notices);
  const proto = ann(ing, 'backend-protocol')?.toUpperCase();
  if (proto !== 'HTTPS' && proto !== 'GRPCS')
    notices.push({
      reason: 'AnnotationNotHonoured',
      message: `Ingress ${ingressIdOf(ing)}: annotation ${NGINX_PREFIX}proxy-ssl-secret is without effect: the backend-protocol is not HTTPS or GRPCS, so the backend is not reached over TLS (as in ingress-nginx)`,
      object: objectRef('ingresses', ing),
    });
  return notices;
}
