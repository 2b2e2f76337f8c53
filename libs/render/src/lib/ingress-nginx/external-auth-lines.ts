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
  return parts.map((p) => ('text' in p ? hv(p.text) : `%[${p.fetch}]`)).join('');
}

/** The lines of one Ingress's external authentication (empty without auth-url). */
export function externalAuthLines(a: ExternalAuth | undefined, hv: Quote): string[] {
  if (a === undefined) return [];
  const lines = [
    `http-request set-var-fmt(txn.nginx_auth_url) ${formatOf(a.url, hv)}`,
    `http-request set-var-fmt(txn.nginx_auth_host) ${hv(a.authority)}`,
    `http-request set-var-fmt(txn.nginx_auth_method) ${hv(a.method)}`,
  ];
  if (a.methodSet) lines.push('http-request set-var(txn.nginx_auth_method_set) bool(true)');
  if (a.requestRedirect !== undefined)
    lines.push(`http-request set-var-fmt(txn.nginx_auth_redirect) ${hv(a.requestRedirect)}`);
  if (a.responseHeaders.length > 0)
    lines.push(`http-request set-var-fmt(txn.nginx_auth_hdrs) ${hv(a.responseHeaders.join(','))}`);
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
  return lines;
}
