// Backend lines of the ingress-nginx library for redirects, CORS and the affinity cookie. Every
// value comes from reader.ts (checked against its grammar); free text goes through `hv`, the
// header_value filter (a double-quoted log-format word, `%` doubled).
import type { AffinityCookie, NginxSettings } from './reader.js';

type Quote = (v: string) => string;

const NOT_HTTPS = '!{ var(txn.nginx_scheme) -m str https }';

/**
 * app-root (302 to an absolute URL for `/`), permanent/temporal redirects, and the HTTPS
 * redirect (308; ingress-nginx drops a trailing slash unless preserve-trailing-slash): in the
 * order nginx runs them (its `return`s before the Lua HTTPS redirect).
 */
export function redirectLines(s: NginxSettings, hv: Quote): string[] {
  const lines: string[] = [];
  if (s.appRoot !== undefined) {
    // (the app-root grammar has no character special in a quoted log-format)
    lines.push(
      `http-request redirect location "%[var(txn.nginx_scheme)]://%[req.hdr(host)]${s.appRoot}" code 302 if { path / }`,
    );
  }
  if (s.redirect !== undefined)
    lines.push(`http-request redirect location ${hv(s.redirect.url)} code ${s.redirect.code}`);
  return lines;
}

/** The HTTPS redirect, after the CORS preflight answer (nginx: a Lua rewrite, last). */
export function sslRedirectLines(s: NginxSettings): string[] {
  const r = s.sslRedirect;
  if (r === undefined) return [];
  const path = s.preserveTrailingSlash ? '%[pathq]' : '%[pathq,regsub(/$,)]';
  // unquoted: HAProxy reads `$` as a variable only in double quotes
  const redirect = `http-request redirect location https://%[var(txn.host)]${path} code 308 if ${NOT_HTTPS}`;
  if (r.force) return [redirect];
  const exact = r.hosts.filter((h) => !h.startsWith('*.'));
  const wild = r.hosts.filter((h) => h.startsWith('*.'));
  const lines: string[] = [];
  if (exact.length > 0) lines.push(`${redirect} { var(txn.host) -m str ${exact.join(' ')} }`);
  if (wild.length > 0) lines.push(`${redirect} { var(txn.wchost) -m str ${wild.join(' ')} }`);
  return lines;
}

/** The Access-Control-* headers of a CORS answer (values quoted). */
function corsHeaders(s: NonNullable<NginxSettings['cors']>, origin: string, hv: Quote) {
  const h: [string, string][] = [['Access-Control-Allow-Origin', origin]];
  if (s.credentials) h.push(['Access-Control-Allow-Credentials', '"true"']);
  h.push(['Access-Control-Allow-Methods', hv(s.methods)]);
  h.push(['Access-Control-Allow-Headers', hv(s.headers)]);
  if (s.expose !== '') h.push(['Access-Control-Expose-Headers', hv(s.expose)]);
  h.push(['Access-Control-Max-Age', `"${s.maxAge}"`]);
  return h;
}

/**
 * enable-cors: a preflight (OPTIONS) from an allowed origin is answered 204 with the
 * Access-Control-* headers; other answers get them added. Origins: `*` answers `*` to every
 * request; a list echoes the request's Origin when it matches (case-insensitively).
 */
export function corsLines(s: NginxSettings, hv: Quote): string[] {
  const c = s.cors;
  if (c === undefined) return [];
  const lines: string[] = [];
  let origin = '"*"';
  let when = '';
  if (c.origin !== '*') {
    lines.push(
      `http-request set-var(txn.nginx_cors) req.hdr(origin) if { req.hdr(origin) -m reg -i '${c.origin.regex}' }`,
    );
    origin = '"%[var(txn.nginx_cors)]"';
    when = ' { var(txn.nginx_cors) -m found }';
  }
  const headers = corsHeaders(c, origin, hv);
  const hdrs = headers.map(([n, v]) => `hdr ${n} ${v}`).join(' ');
  lines.push(`http-request return status 204 ${hdrs} if METH_OPTIONS${when}`);
  for (const [n, v] of headers)
    lines.push(`http-response set-header ${n} ${v}${when === '' ? '' : ` if${when}`}`);
  return lines;
}

// Paths written unquoted as an ACL pattern: no character HAProxy or a regex reads specially.
const SAFE_PATH = /^\/[A-Za-z0-9._~/-]*$/;
// nginx's cookie_time (`Thu, 18-Nov-2010 11:27:35 GMT`), computed per answer.
const COOKIE_TIME = 'utime("%a, %d-%b-%Y %H:%M:%S GMT")';

/**
 * affinity: cookie — HAProxy inserts the cookie (httponly, as ingress-nginx's) with the
 * session-cookie-* attributes it can write statically; after the answer, its `path=/` becomes
 * ingress-nginx's Path (session-cookie-path, else the matched Ingress path when it is a plain
 * one, else `/`) and an Expires date session-cookie-expires seconds from now is added.
 */
export function cookieLines(c: AffinityCookie, paths: readonly string[], hv: Quote): string[] {
  const v = 'txn.nginx_ckpath';
  const lines: string[] = [];
  // paths come longest first: the first that starts the request path is the matched location
  if (c.path === undefined)
    for (const p of paths.filter((x) => SAFE_PATH.test(x)))
      lines.push(
        `http-request set-var-fmt(${v}) ${hv(p)} if !{ var(${v}) -m found } { var(txn.path) -m beg ${p} }`,
      );
  lines.push(`http-request set-var-fmt(${v}) ${hv(c.path ?? '/')} if !{ var(${v}) -m found }`);
  let line = `cookie ${c.name} insert indirect httponly`;
  if (c.secure) line += ' secure';
  if (c.domain !== undefined) line += ` domain ${c.domain}`;
  if (c.maxAge !== undefined) line += ` attr "Max-Age=${c.maxAge}"`;
  if (c.sameSite !== undefined) line += ` attr "SameSite=${c.sameSite}"`;
  lines.push(line);
  const expires = c.expires === undefined ? '' : `; Expires=%[date(${c.expires}),${COOKIE_TIME}]`;
  const name = c.name.replace(/[.-]/g, '\\$&');
  lines.push(
    `http-after-response replace-header Set-Cookie '^(${name}=[^;]*); path=/(.*)$' '\\1; Path=%[var(${v})]${expires}\\2'`,
  );
  if (c.conditionalSameSiteNone && c.sameSite === 'None') lines.push(...sameSiteNoneLines(name));
  return lines;
}

// The User-Agents ingress-nginx finds reject `SameSite=None` (its same_site_none_compatible):
// these substrings, or a Safari on macOS 10.14 that is not Chrome. req.fhdr: a User-Agent
// holds commas.
const UA = 'req.fhdr(user-agent) -m sub';
const SAMESITE_NONE_REJECTED = [
  `{ ${UA} Chrome/4 Chrome/5 Chrome/6 "CPU iPhone OS 12" "iPad; CPU OS 12" }`,
  `{ ${UA} Macintosh } { ${UA} "Intel Mac OS X 10_14" } { ${UA} Safari } !{ ${UA} Chrome }`,
];

/** session-cookie-conditional-samesite-none: the cookie loses `SameSite=None` for those clients. */
function sameSiteNoneLines(name: string): string[] {
  const v = 'txn.nginx_ssn_old';
  return [
    ...SAMESITE_NONE_REJECTED.map((acl) => `http-request set-var(${v}) bool(true) if ${acl}`),
    `http-after-response replace-header Set-Cookie '^(${name}=.*); SameSite=None(.*)$' '\\1\\2' if { var(${v}) -m bool }`,
  ];
}
