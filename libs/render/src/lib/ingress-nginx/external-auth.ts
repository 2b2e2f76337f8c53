// External authentication of the ingress-nginx library (auth-url and its companions), read with
// ingress-nginx's semantics and its grammar checked here; the haproxy.cfg lines are built in
// external-auth-lines.ts and the call itself is the vetted Lua action (docs/adr/0013).
// An auth URL holds nginx variables ($host, $request_uri, $escaped_request_uri, ...): each
// becomes a HAProxy sample fetch; the literal parts stay text for the output escaper.

/** What the reader offers (reader.ts's NginxReader; an interface here to avoid a cycle). */
export interface AuthSource {
  get(name: string): string | undefined;
  fail(name: string, why: string): never;
}

/** A piece of an expanded URL: literal text (escaped when written) or a HAProxy sample fetch. */
export type UrlPart = { readonly text: string } | { readonly fetch: string };

/** What an Ingress's auth-* annotations ask for (only with auth-url). */
export interface ExternalAuth {
  /** The auth URL, its nginx variables as sample fetches. */
  readonly url: readonly UrlPart[];
  /** host[:port] of the auth URL: the Host of the subrequest. */
  readonly authority: string;
  readonly method: string;
  /** auth-method was given: ingress-nginx then also sends X-Original-URI and X-Scheme. */
  readonly methodSet: boolean;
  /** auth-signin's Location, the original URL in its redirect parameter, or undefined. */
  readonly signin: readonly UrlPart[] | undefined;
  /** auth-request-redirect (X-Auth-Request-Redirect), or undefined for the request URI. */
  readonly requestRedirect: string | undefined;
  /** auth-response-headers: copied from a 2xx answer onto the upstream request. */
  readonly responseHeaders: readonly string[];
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
};
const PREFIXED: readonly (readonly [RegExp, (n: string) => string])[] = [
  [/^arg_([A-Za-z0-9_]{1,64})$/, (n) => `urlp(${n})`],
  [/^http_([a-z0-9_]{1,64})$/, (n) => `req.hdr(${n.replace(/_/g, '-')})`],
  [/^cookie_([A-Za-z0-9_]{1,64})$/, (n) => `req.cook(${n})`],
];

// The URL's grammar: scheme, a literal host, an optional port, then path and query in which
// `$name`/`${name}` are variables and `%` only starts a percent-escape.
const HEAD =
  /^(https?):\/\/([A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:[0-9]{1,5})?)(?=[/?]|$)/;
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

/** A URL split into literal text and fetches, or why it is not one this library accepts. */
export function parseAuthUrl(v: string): { parts: UrlPart[]; authority: string } | string {
  const head = HEAD.exec(v);
  if (!head?.[2]) return 'is not an http:// or https:// URL with a host name';
  const parts: UrlPart[] = [{ text: head[0] }];
  let rest = v.slice(head[0].length);
  while (rest !== '') {
    const lit = LITERAL.exec(rest);
    const vr = lit ? null : VARIABLE.exec(rest);
    if (lit) {
      parts.push({ text: lit[0] });
      rest = rest.slice(lit[0].length);
    } else if (vr) {
      const name = vr[2] ?? vr[3] ?? '';
      const fetch = fetchOf(name);
      if (fetch === undefined) return `the variable $${name} is not one haptic expands`;
      parts.push({ fetch });
      rest = rest.slice(vr[0].length);
    } else {
      return `has ${JSON.stringify(rest[0])} where a URL character, %XX or $variable is expected`;
    }
  }
  return { parts: merged(parts), authority: head[2] };
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
  };
}
