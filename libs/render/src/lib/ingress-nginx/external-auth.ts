// External authentication of the ingress-nginx library (auth-url and its companions), read with
// ingress-nginx's semantics and its grammar checked here; the haproxy.cfg lines are built in
// external-auth-lines.ts and the call itself is the vetted Lua action (docs/adr/0013).
// An auth URL holds nginx variables ($host, $request_uri, $escaped_request_uri, ...): each
// becomes a HAProxy sample fetch; the literal parts stay text for the output escaper.

import { FORBIDDEN_CHARS } from '../escaper.js';

/** What the reader offers (reader.ts's NginxReader; an interface here to avoid a cycle). */
export interface AuthSource {
  /** The Ingress's namespace. */
  readonly namespace: string;
  get(name: string): string | undefined;
  flag(name: string, fallback: boolean): boolean;
  fail(name: string, why: string): never;
}

/** A piece of an expanded URL: literal text (escaped when written) or a HAProxy sample fetch. */
export type UrlPart = { readonly text: string } | { readonly fetch: string };

/** What an Ingress's auth-* annotations ask for (only with auth-url). */
export interface ExternalAuth {
  /** The auth URL, its nginx variables as sample fetches. */
  readonly url: readonly UrlPart[];
  /** host[:port] of the auth URL (its host may be a variable): the Host of the subrequest. */
  readonly authority: readonly UrlPart[];
  readonly method: string;
  /** auth-method was given: ingress-nginx then also sends X-Original-URI and X-Scheme. */
  readonly methodSet: boolean;
  /** auth-signin's Location, the original URL in its redirect parameter, or undefined. */
  readonly signin: readonly UrlPart[] | undefined;
  /** auth-request-redirect (X-Auth-Request-Redirect), or undefined for the request URI. */
  readonly requestRedirect: string | undefined;
  /** auth-response-headers: copied from a 2xx answer onto the upstream request. */
  readonly responseHeaders: readonly string[];
  /** auth-always-set-cookie: the auth service's Set-Cookie on every answer, errors too. */
  readonly alwaysSetCookie: boolean;
  /** auth-cache-key and auth-cache-duration, or undefined without a key. */
  readonly cache: AuthCache | undefined;
  /** auth-proxy-set-headers: the ConfigMap (`namespace/name`) of headers sent to the service. */
  readonly proxyHeaders: { readonly namespace: string; readonly name: string } | undefined;
}

/** Cached auth answers: their key (nginx variables as fetches) and lifetime per status. */
export interface AuthCache {
  readonly key: readonly UrlPart[];
  /** Seconds an answer of each status is kept; a status not listed is not cached. */
  readonly ttl: ReadonlyMap<number, number>;
}

// nginx variables a URL may hold, as the sample fetch giving the same value in the library's
// frontend (txn.host: the Host without port, lower-case, as nginx's $host).
const VARIABLES: Readonly<Record<string, string>> = {
  host: 'var(txn.host)',
  http_host: 'req.hdr(host)',
  scheme: 'var(txn.nginx_scheme)',
  pass_access_scheme: 'var(txn.nginx_scheme)',
  request_uri: 'pathq',
  escaped_request_uri: 'pathq,url_enc',
  uri: 'path',
  document_uri: 'path',
  args: 'query',
  query_string: 'query',
  request_method: 'method',
  remote_addr: 'var(txn.nginx_client)',
  server_port: 'dst_port',
  // the user of a Basic Authorization header, as nginx's $remote_user
  remote_user: 'http_auth_user',
};
const PREFIXED: readonly (readonly [RegExp, (n: string) => string])[] = [
  [/^arg_([A-Za-z0-9_]{1,64})$/, (n) => `urlp(${n})`],
  [/^http_([a-z0-9_]{1,64})$/, (n) => `req.hdr(${n.replace(/_/g, '-')})`],
  [/^cookie_([A-Za-z0-9_]{1,64})$/, (n) => `req.cook(${n})`],
];

// The URL's grammar: scheme, a host (a name, or a variable such as `$host` as oauth2-proxy's
// examples write it), an optional port, then path and query in which `$name`/`${name}` are
// variables and `%` only starts a percent-escape.
const SCHEME = /^https?:\/\//;
const HOST = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?/;
const PORT = /^(:[0-9]{1,5})?(?=[/?]|$)/;
const LITERAL = /^([A-Za-z0-9._~!&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})+/;
const VARIABLE = /^\$(\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/;
// header names HAProxy reads as one plain word (no quote, `#` or `$`)
const HEADER = /^[A-Za-z0-9._-]{1,128}$/;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];
const PARAM = /^[A-Za-z0-9._~-]{1,64}$/;
const REDIRECT = /^[A-Za-z0-9._~!&'()*+,;=:@/?%-]{1,2048}$/;

function fetchOf(name: string): string | undefined {
  if (Object.hasOwn(VARIABLES, name)) return VARIABLES[name];
  for (const [re, f] of PREFIXED) {
    const m = re.exec(name);
    if (m?.[1] !== undefined) return f(m[1]);
  }
  return undefined;
}

/** The variable at the start of `v` as a fetch, its length, or why it is not one. */
function variableAt(v: string): { fetch: string; length: number } | string | undefined {
  const vr = VARIABLE.exec(v);
  if (!vr) return undefined;
  const name = vr[2] ?? vr[3] ?? '';
  const fetch = fetchOf(name);
  if (fetch === undefined) return `the variable $${name} is not one haptic expands`;
  return { fetch, length: vr[0].length };
}

/** Literal text and nginx variables (the grammar of LITERAL), or why `rest` is not that. */
function partsOf(rest: string, literal: RegExp): UrlPart[] | string {
  const parts: UrlPart[] = [];
  while (rest !== '') {
    const lit = literal.exec(rest);
    if (lit) {
      parts.push({ text: lit[0] });
      rest = rest.slice(lit[0].length);
      continue;
    }
    const vr = variableAt(rest);
    if (typeof vr === 'string') return vr;
    if (vr === undefined)
      return `has ${JSON.stringify(rest[0])} where a URL character, %XX or $variable is expected`;
    parts.push({ fetch: vr.fetch });
    rest = rest.slice(vr.length);
  }
  return parts;
}

/** A URL split into literal text and fetches, or why it is not one this library accepts. */
export function parseAuthUrl(v: string): { parts: UrlPart[]; authority: UrlPart[] } | string {
  const scheme = SCHEME.exec(v)?.[0];
  if (scheme === undefined) return 'is not an http:// or https:// URL with a host name';
  let rest = v.slice(scheme.length);
  const name = HOST.exec(rest)?.[0];
  const vr = name === undefined ? variableAt(rest) : undefined;
  if (typeof vr === 'string') return vr;
  const host: UrlPart | undefined =
    name !== undefined ? { text: name } : vr === undefined ? undefined : { fetch: vr.fetch };
  const port = PORT.exec(rest.slice(name?.length ?? vr?.length ?? 0));
  if (host === undefined || port === null)
    return 'is not an http:// or https:// URL with a host name';
  rest = rest.slice((name?.length ?? vr?.length ?? 0) + port[0].length);
  const authority = merged([host, ...(port[0] === '' ? [] : [{ text: port[0] }])]);
  const tail = partsOf(rest, LITERAL);
  if (typeof tail === 'string') return tail;
  return { parts: merged([{ text: scheme }, ...authority, ...tail]), authority };
}

/** Adjacent literal pieces joined (one quoted word each in the output). */
function merged(parts: readonly UrlPart[]): UrlPart[] {
  const out: UrlPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if ('text' in p && last !== undefined && 'text' in last)
      out[out.length - 1] = { text: last.text + p.text };
    else out.push(p);
  }
  return out;
}

/**
 * ingress-nginx's auth-signin Location: the URL, then `<param>=<scheme>://<Host><escaped
 * request URI>` after `?` (or `&` when it has a query); unchanged when its query already has
 * the parameter.
 */
function signinParts(url: UrlPart[], param: string, hasParam: boolean): UrlPart[] {
  if (hasParam) return url;
  const query = url.some((p) => 'text' in p && p.text.includes('?'));
  return merged([
    ...url,
    { text: `${query ? '&' : '?'}${param}=` },
    { fetch: 'var(txn.nginx_scheme)' },
    { text: '://' },
    { fetch: 'req.hdr(host)' },
    { fetch: 'pathq,url_enc' },
  ]);
}

function signinOf(r: AuthSource): UrlPart[] | undefined {
  const v = r.get('auth-signin')?.trim();
  if (v === undefined || v === '') return undefined;
  const parsed = parseAuthUrl(v);
  if (typeof parsed === 'string') return r.fail('auth-signin', parsed);
  const param = r.get('auth-signin-redirect-param')?.trim() || 'rd';
  if (!PARAM.test(param))
    r.fail('auth-signin-redirect-param', `${JSON.stringify(param)} is not a query parameter name`);
  const query = v.includes('?') ? v.slice(v.indexOf('?') + 1) : '';
  const has = query.split('&').some((kv) => {
    const [k, val] = kv.split('=');
    return k === param && val !== undefined && val !== '';
  });
  return signinParts(parsed.parts, param, has);
}

function headersOf(r: AuthSource): string[] {
  const v = r.get('auth-response-headers')?.trim();
  if (v === undefined || v === '') return [];
  const names = v.split(',').map((h) => h.trim());
  for (const h of names)
    if (!HEADER.test(h))
      r.fail('auth-response-headers', `${JSON.stringify(h)} is not an HTTP header name`);
  return names;
}

// auth-cache-duration: `[code ...] time [time ...]` entries, comma-separated (nginx's
// proxy_cache_valid); a time alone caches 200, 301 and 302, as nginx does
const CODE = /^[0-9]{3}$/;
const TIME = /^([0-9]{1,9})(ms|s|m|h|d|w|M|y)$/;
const SECONDS: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 604800,
  M: 2592000,
  y: 31536000,
};
/** ingress-nginx's default auth-cache-duration. */
export const DEFAULT_CACHE_DURATION = '200 202 401 5m';
const CACHE_KEY = /^[A-Za-z0-9_${}-]{1,256}$/;
const KEY_LITERAL = /^[A-Za-z0-9_{}-]+/;
const CONFIGMAP = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;

/** Seconds per status of an auth-cache-duration value, or why it is not one. */
export function parseCacheDuration(v: string): Map<number, number> | string {
  const ttl = new Map<number, number>();
  for (const entry of v.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const codes: number[] = [];
    let seconds = 0;
    let timed = false;
    for (const word of entry.split(' ').filter((w) => w !== '')) {
      const time = TIME.exec(word);
      if (CODE.test(word) && !timed) codes.push(Number(word));
      else if (time?.[1] !== undefined && time[2] !== undefined) {
        timed = true;
        seconds += Number(time[1]) * (SECONDS[time[2]] ?? 0);
      } else return `${JSON.stringify(entry)} is not [code ...] time (for example 200 202 401 5m)`;
    }
    if (!timed) return `${JSON.stringify(entry)} has no time (for example 5m)`;
    for (const code of codes.length > 0 ? codes : [200, 301, 302])
      if (!ttl.has(code)) ttl.set(code, seconds);
  }
  return ttl;
}

function cacheOf(r: AuthSource): AuthCache | undefined {
  const key = r.get('auth-cache-key')?.trim();
  if (key === undefined || key === '') return undefined;
  if (!CACHE_KEY.test(key))
    r.fail('auth-cache-key', `${JSON.stringify(key)} is not letters, digits, -, _ and $variables`);
  const parts = partsOf(key, KEY_LITERAL);
  if (typeof parts === 'string') return r.fail('auth-cache-key', parts);
  const given = r.get('auth-cache-duration')?.trim() || DEFAULT_CACHE_DURATION;
  const ttl = parseCacheDuration(given);
  if (typeof ttl === 'string') return r.fail('auth-cache-duration', ttl);
  return { key: merged(parts), ttl };
}

function proxyHeadersOf(r: AuthSource, namespace: string): ExternalAuth['proxyHeaders'] {
  const ref = r.get('auth-proxy-set-headers')?.trim();
  if (ref === undefined || ref === '') return undefined;
  const [a = '', b, ...rest] = ref.split('/');
  const [ns, name] = b === undefined ? [namespace, a] : [a, b];
  if (rest.length > 0 || !CONFIGMAP.test(ns) || !CONFIGMAP.test(name))
    r.fail(
      'auth-proxy-set-headers',
      `${JSON.stringify(ref)} is not a ConfigMap name or namespace/name`,
    );
  if (ns !== namespace)
    r.fail('auth-proxy-set-headers', `ConfigMap ${ref} is in another namespace than the Ingress`);
  return { namespace: ns, name };
}

/** The Ingress's external authentication, or undefined without auth-url. */
export function readExternalAuth(r: AuthSource): ExternalAuth | undefined {
  const raw = r.get('auth-url')?.trim();
  if (raw === undefined || raw === '') return undefined;
  const parsed = parseAuthUrl(raw);
  if (typeof parsed === 'string') return r.fail('auth-url', parsed);
  const given = r.get('auth-method')?.trim() ?? '';
  const method = given || 'GET';
  if (!METHODS.includes(method))
    r.fail('auth-method', `${JSON.stringify(method)} is not one of ${METHODS.join(', ')}`);
  const redirect = r.get('auth-request-redirect')?.trim();
  if (redirect !== undefined && redirect !== '' && !REDIRECT.test(redirect))
    r.fail('auth-request-redirect', `${JSON.stringify(redirect)} is not a URL or path`);
  return {
    url: parsed.parts,
    authority: parsed.authority,
    method,
    methodSet: given !== '',
    signin: signinOf(r),
    requestRedirect: redirect === '' ? undefined : redirect,
    responseHeaders: headersOf(r),
    alwaysSetCookie: r.flag('auth-always-set-cookie', false),
    cache: cacheOf(r),
    proxyHeaders: proxyHeadersOf(r, r.namespace),
  };
}

// auth-proxy-set-headers' ConfigMap: header names as ingress-nginx's ValidHeader, values any
// text without control characters (FORBIDDEN_CHARS) in which `$name` is an nginx variable
const PROXY_HEADER = /^[A-Za-z0-9_-]{1,256}$/;
const VALUE_LITERAL = /^([^$]|\$(?![A-Za-z0-9_{]))+/;
const MAX_VALUE = 4096;

/** The headers sent to the auth service, or why the Ingress's locations answer 503. */
export type AuthProxyHeaders =
  | {
      readonly headers: readonly (readonly [string, readonly UrlPart[]])[];
      readonly denied?: undefined;
    }
  | { readonly headers?: undefined; readonly denied: string };

/**
 * The entries of auth-proxy-set-headers' ConfigMap (`configMaps` looks one up by namespace and
 * name) in key order, values split into text and nginx variables. As ingress-nginx denies the
 * location (503) when the ConfigMap is missing or holds an invalid header, so is it here, with
 * the reason naming the ConfigMap and its key.
 */
export function authProxyHeadersOf(
  ref: { readonly namespace: string; readonly name: string },
  configMaps: ((keys: readonly string[]) => readonly object[]) | undefined,
): AuthProxyHeaders {
  const id = `ConfigMap ${ref.namespace}/${ref.name}`;
  const denied = (why: string) => ({
    denied: `auth-proxy-set-headers: ${why}; its locations answer 503`,
  });
  const cm = configMaps?.([ref.namespace, ref.name])[0];
  if (cm === undefined) return denied(`${id} not found`);
  const data: unknown = (cm as { data?: unknown }).data;
  const entries = data !== null && typeof data === 'object' ? Object.entries(data) : [];
  const headers: [string, UrlPart[]][] = [];
  for (const [key, raw] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const at = `${id} key ${JSON.stringify(key)}`;
    if (!PROXY_HEADER.test(key))
      return denied(`${at} is not a header name (letters, digits, - and _)`);
    const value = typeof raw === 'string' ? raw : String(raw);
    if (value.length > MAX_VALUE || FORBIDDEN_CHARS.test(value))
      return denied(
        `${at}: the value holds a control character or is over ${MAX_VALUE} characters`,
      );
    const parts = value === '' ? [] : partsOf(value, VALUE_LITERAL);
    if (typeof parts === 'string') return denied(`${at}: the value ${parts}`);
    headers.push([key, merged(parts)]);
  }
  return { headers };
}
