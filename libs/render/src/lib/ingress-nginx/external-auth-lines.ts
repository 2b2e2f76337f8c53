// haproxy.cfg lines of external authentication (external-auth.ts), written in the Ingress's own
// backends so another Ingress on the same host is never asked: the inputs of the vetted Lua
// action in txn variables, the call, then nginx's auth_request answers — 401 (or the signin
// redirect), 403, anything else or no answer 500 — and the kept answer headers replacing the
// client's. Literal text goes through the header_value escaper; fetches are the reader's own.
import type { ExternalAuth, UrlPart } from './external-auth.js';

type Quote = (v: string) => string;

/** The action auth-request.lua registers (the validation allow-list names it too). */
export const AUTH_ACTION = 'haptic_nginx_auth';
const STATUS = 'var(txn.nginx_auth_status)';

/** A log-format word: quoted literal pieces and unquoted fetches, read by HAProxy as one word. */
function formatOf(parts: readonly UrlPart[], hv: Quote): string {
  if (parts.length === 0) return hv('');
  return parts.map((p) => ('text' in p ? hv(p.text) : `%[${p.fetch}]`)).join('');
}

// nginx's add_header (without `always`) adds to these statuses only
const ADD_HEADER_STATUSES = '200 201 204 206 301 302 303 304 307 308';

/** The headers auth-proxy-set-headers sends: name and value (nginx variables as fetches). */
export type ProxyHeaders = readonly (readonly [string, readonly UrlPart[]])[];

/** The cache's lifetimes as the Lua action reads them: `status=seconds` comma-separated. */
function ttlText(ttl: ReadonlyMap<number, number>): string {
  return [...ttl].map(([code, s]) => `${code}=${s}`).join(',');
}

/**
 * The lines of one Ingress's external authentication (empty without auth-url). `be` (the
 * backend's name) scopes the cache; `headers` are auth-proxy-set-headers' ConfigMap entries.
 */
export function externalAuthLines(
  a: ExternalAuth | undefined,
  hv: Quote,
  be = '',
  headers: ProxyHeaders = [],
): string[] {
  if (a === undefined) return [];
  const lines = [
    `http-request set-var-fmt(txn.nginx_auth_url) ${formatOf(a.url, hv)}`,
    `http-request set-var-fmt(txn.nginx_auth_host) ${formatOf(a.authority, hv)}`,
    `http-request set-var-fmt(txn.nginx_auth_method) ${hv(a.method)}`,
  ];
  if (a.methodSet) lines.push('http-request set-var(txn.nginx_auth_method_set) bool(true)');
  if (a.requestRedirect !== undefined)
    lines.push(`http-request set-var-fmt(txn.nginx_auth_redirect) ${hv(a.requestRedirect)}`);
  if (a.responseHeaders.length > 0)
    lines.push(`http-request set-var-fmt(txn.nginx_auth_hdrs) ${hv(a.responseHeaders.join(','))}`);
  if (headers.length > 0) {
    lines.push(
      `http-request set-var-fmt(txn.nginx_auth_pnames) ${hv(headers.map(([n]) => n).join(','))}`,
    );
    headers.forEach(([, value], i) =>
      lines.push(`http-request set-var-fmt(txn.nginx_auth_p${i}) ${formatOf(value, hv)}`),
    );
  }
  // ingress-nginx's cache key: the server's host, the location, the expanded auth-cache-key
  if (a.cache !== undefined) {
    const key = [{ fetch: 'var(txn.host)' }, { text: ` ${be} ` }, ...a.cache.key];
    lines.push(
      `http-request set-var-fmt(txn.nginx_auth_ckey) ${formatOf(key, hv)}`,
      `http-request set-var-fmt(txn.nginx_auth_cttl) ${hv(ttlText(a.cache.ttl))}`,
    );
  }
  lines.push(`http-request lua.${AUTH_ACTION}`);
  if (a.signin !== undefined)
    lines.push(
      `http-request redirect location ${formatOf(a.signin, hv)} code 302 if { ${STATUS} -m int 401 }`,
    );
  lines.push(
    `http-request deny deny_status 401 if { ${STATUS} -m int 401 }`,
    `http-request deny deny_status 403 if { ${STATUS} -m int 403 }`,
    `http-request deny deny_status 500 unless { ${STATUS} -m int 200:299 }`,
  );
  a.responseHeaders.forEach((h, i) => {
    const v = `var(txn.nginx_auth_h${i})`;
    lines.push(`http-request del-header ${h}`);
    lines.push(`http-request set-header ${h} %[${v}] if { ${v} -m found }`);
  });
  // a 401 carries the auth service's WWW-Authenticate, as nginx's auth_request copies it
  const www = 'var(txn.nginx_auth_www)';
  lines.push(
    `http-after-response set-header WWW-Authenticate %[${www}] if { ${www} -m found } { ${STATUS} -m int 401 } { status 401 }`,
  );
  // the auth service's Set-Cookie on the answer: on nginx's add_header statuses, or on every
  // answer (HAProxy's own deny and redirect too) with auth-always-set-cookie
  const cookie = 'var(txn.nginx_auth_cookie)';
  const statuses = a.alwaysSetCookie ? '' : ` { status ${ADD_HEADER_STATUSES} }`;
  lines.push(
    `http-after-response add-header Set-Cookie %[${cookie}] if { ${cookie} -m found }${statuses}`,
  );
  return lines;
}
