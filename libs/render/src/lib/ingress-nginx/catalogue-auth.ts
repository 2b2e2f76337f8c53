// Catalogue rows: snippets (refused) and authentication (basic auth, client certificates and
// external auth honoured; what remains is planned in issue 35, never refused).
import type { AnnotationGroup, NginxAnnotation } from './catalogue-types.js';
import { pending } from './catalogue-routing.js';

const SN: AnnotationGroup = 'Snippets';
const AU: AnnotationGroup = 'Authentication';

const SNIPPET_REASON =
  'snippets are never pasted into haproxy.cfg: nginx directives have no HAProxy meaning and raw configuration from an Ingress would let any namespace change every host';

function snippet(name: string, meaning: string): NginxAnnotation {
  return {
    name,
    group: SN,
    meaning,
    haproxy: 'None.',
    status: 'refused',
    reason: SNIPPET_REASON,
  };
}

const ISSUE_35 = 'issue 35';

function auth(name: string, meaning: string, haproxy: string, more: Partial<NginxAnnotation> = {}) {
  return pending(AU, name, meaning, haproxy, { planned: ISSUE_35, ...more });
}

/** A basic-auth or client-certificate row: honoured by the ingress-nginx library (status in `more`). */
function basic(name: string, meaning: string, haproxy: string, more: Partial<NginxAnnotation>) {
  return pending(AU, name, meaning, haproxy, more);
}

export const AUTH_ANNOTATIONS: readonly NginxAnnotation[] = [
  snippet('configuration-snippet', 'nginx directives pasted into the location.'),
  snippet('server-snippet', 'nginx directives pasted into the server block.'),
  snippet('stream-snippet', 'nginx directives pasted into the stream block.'),
  snippet('auth-snippet', 'nginx directives pasted into the auth_request location.'),
  snippet('modsecurity-snippet', 'ModSecurity rules for the location.'),
  basic(
    'auth-type',
    'Authentication type: `basic` or `digest`.',
    'A `userlist` per backend of the Ingress and `http-request auth realm <realm> unless { http_auth(<userlist>) }` in those backends only.',
    {
      status: 'honoured',
      refusedValues: [{ value: /^digest$/i, reason: 'HAProxy has no digest authentication.' }],
    },
  ),
  basic(
    'auth-secret',
    "The Secret holding the users (`name`, or `namespace/name` in the Ingress's namespace).",
    "The `userlist` users (names and hashes quoted). A missing Secret or key, or a Secret in another namespace (ingress-nginx's allow-cross-namespace-resources is false by default), answers 503.",
    {
      status: 'deviation',
      deviation:
        'Only crypt(3) hashes HAProxy checks are accepted: bcrypt ($2y$/$2b$/$2a$), SHA-512 ($6$), SHA-256 ($5$), MD5 ($1$). apr1 ($apr1$, the htpasswd default without -B) and {SHA} lines are left out with a notice naming the Ingress, the Secret and the line (that user cannot log in). A Secret change is applied by a reload (a userlist cannot change at runtime).',
    },
  ),
  basic(
    'auth-secret-type',
    '`auth-file` (an htpasswd file) or `auth-map` (user: hash keys).',
    'How the Secret is read into the userlist.',
    { status: 'honoured' },
  ),
  basic(
    'auth-realm',
    'The realm of `WWW-Authenticate`.',
    '`http-request auth realm <realm>`, quoted; `"` and `\\` are refused (HAProxy writes the realm unescaped).',
    { status: 'honoured' },
  ),
  basic(
    'auth-url',
    'External authentication: a subrequest to this URL decides (2xx lets through).',
    "The library's vetted Lua action (docs/adr/0013) calls the URL from the Ingress's own backends with the headers ingress-nginx sends (X-Original-URL, X-Original-Method, X-Sent-From, X-Real-IP, X-Forwarded-For, X-Auth-Request-Redirect, the client's headers without body); 401 (with the service's WWW-Authenticate) and 403 are answered as such, any other status or no answer 500. The variables $host, $http_host, $scheme, $request_uri, $escaped_request_uri, $uri, $args, $query_string, $request_method, $remote_addr, $remote_user, $server_port, $arg_*, $http_*, $cookie_* are expanded, in the path, the query and as the host; any other, or a value outside the URL grammar, refuses the Ingress.",
    {
      status: 'deviation',
      deviation:
        "Each request not answered from the cache makes its own call (no keep-alive pool); an https auth URL's certificate is verified against the system CAs (HAProxy's httpclient default), where ingress-nginx does not verify it; a host given as a variable ($host) is resolved by HAProxy's default resolvers (the pod's resolv.conf).",
    },
  ),
  basic(
    'auth-method',
    'The method of the auth subrequest.',
    'The method of the Lua call; with it X-Original-URI and X-Scheme are sent too, as in ingress-nginx.',
    {
      status: 'deviation',
      deviation:
        "Only GET, HEAD, POST, PUT and DELETE (what HAProxy's httpclient offers); another method refuses the Ingress.",
    },
  ),
  basic(
    'auth-signin',
    'Where a 401 from the auth service redirects (with `rd=`).',
    'A 302 to the URL with `rd=<scheme>://<Host><escaped request URI>` appended (after `?`, or `&` when it has a query; left out when its query already has the parameter), as ingress-nginx builds it.',
    { status: 'honoured' },
  ),
  basic(
    'auth-signin-redirect-param',
    'The name of the `rd` query parameter.',
    'The parameter of that redirect.',
    { status: 'honoured' },
  ),
  basic(
    'auth-request-redirect',
    'The `X-Auth-Request-Redirect` sent to the auth service.',
    'A header of the Lua call (the request URI without it).',
    { status: 'honoured' },
  ),
  basic(
    'auth-response-headers',
    'Headers of the auth answer copied to the upstream request.',
    "Kept by the Lua call from a 2xx answer; the client's headers of those names are removed, then set from the answer.",
    { status: 'honoured' },
  ),
  basic(
    'auth-proxy-set-headers',
    "Headers (from a ConfigMap: `name` or `namespace/name`, in the Ingress's namespace) sent to the auth service.",
    "Headers of the Lua call, set after the ones ingress-nginx always sends; values keep their nginx variables (expanded as in auth-url); an empty value sends no header. A missing ConfigMap, or a key that is not a header name, answers 503 for the Ingress's locations with a notice, as ingress-nginx denies the location.",
    { status: 'honoured' },
  ),
  basic(
    'auth-cache-key',
    'The key of cached auth answers (nginx variables, for example `$remote_user$http_authorization`).',
    "The Lua action keeps answers in HAProxy's memory under the request's host, the Ingress's backend and the expanded key, and answers from there without calling the service until they expire, so a request keeps passing while the service is gone. Never cached, as in nginx's proxy_cache: an answer with Set-Cookie or Cache-Control no-cache, no-store or private; Cache-Control max-age sets the lifetime.",
    {
      status: 'deviation',
      deviation:
        "The cache lives in each HAProxy process's memory (at most 10,000 answers): a reload empties it, where nginx's cache is on disk. The paths of one Ingress that lead to the same Service share their answers, where nginx keeps them per location; Expires and X-Accel-Expires are not read.",
    },
  ),
  basic(
    'auth-cache-duration',
    'How long auth answers are cached, per status: `[code ...] time[, ...]` (default `200 202 401 5m`).',
    "The lifetime per status of cached answers, as nginx's proxy_cache_valid reads it (a time alone: 200, 301 and 302; units ms, s, m, h, d, w, M, y); without auth-cache-key nothing is cached. A value outside the grammar refuses the Ingress.",
    { status: 'honoured' },
  ),
  basic(
    'auth-always-set-cookie',
    "Pass the auth service's Set-Cookie on every answer, errors too.",
    "`http-after-response add-header Set-Cookie` with the auth answer's Set-Cookie: without the annotation on nginx's add_header statuses only (200, 201, 204, 206, 301, 302, 303, 304, 307, 308; the signin redirect too), with it on every answer.",
    { status: 'honoured' },
  ),
  basic(
    'auth-tls-secret',
    'CA bundle (`ca.crt`, optional `ca.crl`) to verify client certificates: `name` or `namespace/name`.',
    "`verify optional ca-file` (and `crl-file`) on the host's own crt-list line, so a certificate is asked for on that SNI only; a missing Secret, one in another namespace or one without a PEM `ca.crt` answers 503 for the host with a notice.",
    {
      status: 'deviation',
      deviation:
        'A certificate counts for a host only when the SNI it was asked for is the Host (nginx: the server chosen by SNI). A host with a policy needs a spec.tls entry for it (with the default certificate only, no certificate is asked for and verify on answers 400). A CA or CRL change is applied by a reload.',
    },
  ),
  basic(
    'auth-tls-verify-client',
    '`on` (default), `off`, `optional`, `optional_no_ca`.',
    'The handshake always succeeds (`ca-ignore-err all crt-ignore-err all` on the bind); after it, `http-request deny deny_status 400` on TLS requests of the host without a verified certificate (on), with an unverified one (optional), or with one asked for by another SNI (optional_no_ca); off asks for none.',
    { status: 'honoured' },
  ),
  auth(
    'auth-tls-verify-depth',
    'The certificate chain depth.',
    'HAProxy has no per-SNI verification depth: the chain is verified to the CA whatever its length.',
  ),
  basic(
    'auth-tls-error-page',
    'Where a failed verification redirects.',
    "`http-request redirect location '<url>' code 302` instead of the 400 (an http(s) URL without spaces, quotes, backslashes or `%`).",
    { status: 'honoured' },
  ),
  basic(
    'auth-tls-pass-certificate-to-upstream',
    "Send the client certificate as `ssl-client-cert` (URL-encoded PEM, nginx's `$ssl_client_escaped_cert`).",
    "`ssl_c_der` as PEM lines of 64, URL-encoded, in `ssl-client-cert`; with a policy the client's own ssl-client-* headers are replaced or removed, and ssl-client-verify, -subject-dn, -issuer-dn (RFC 2253) are always sent.",
    {
      status: 'deviation',
      deviation:
        'ssl-client-verify reads `FAILED:<OpenSSL error number>` where nginx writes the error text.',
    },
  ),
  basic(
    'auth-tls-match-cn',
    "A regular expression the client certificate's subject DN must match (nginx: `$ssl_client_s_dn`).",
    "`http-request deny deny_status 403` unless `ssl_c_s_dn(,0,rfc2253) -m reg -- '<pattern>'` (printable, no single quote); 403 without a certificate of the host.",
    { status: 'honoured' },
  ),
  basic(
    'proxy-ssl-secret',
    "Secret (`namespace/name`, in the Ingress's namespace) with `ca.crt` to verify the backend and/or `tls.crt`/`tls.key`, the client certificate presented to it.",
    "On HTTPS/GRPCS backends: `ca-file` (ca.crt) and `crt` (tls.crt with tls.key) on the server lines, both files in HAProxy's ssl storage. A missing Secret, one in another namespace, or one without a key pair or CA answers 503.",
    { status: 'honoured' },
  ),
  basic(
    'proxy-ssl-verify',
    "Verify the backend's certificate against ca.crt (`on`/`off`, default off).",
    '`verify required ca-file <ca.crt> verifyhost <proxy-ssl-name>` (with a ca.crt, as nginx), else `verify none`; a bad value is `off` with a notice.',
    {
      status: 'deviation',
      deviation:
        'A failed verification answers 503 (HAProxy reached no server) where ingress-nginx answers 502.',
    },
  ),
  basic(
    'proxy-ssl-verify-depth',
    'The longest certificate chain accepted from the backend (default 1).',
    'Checked (a bad value is 1 with a notice).',
    {
      status: 'deviation',
      deviation:
        'HAProxy has no verification depth for servers: a backend chain longer than the depth is accepted when it leads to ca.crt.',
    },
  ),
  basic(
    'proxy-ssl-name',
    "The name checked in the backend's certificate and sent as SNI (default nginx's `upstream_balancer`).",
    '`verifyhost <name>` (and `sni str(<name>)` with proxy-ssl-server-name); a value that is not a host name is the default with a notice.',
    { status: 'honoured' },
  ),
  basic(
    'proxy-ssl-server-name',
    'Send the proxy-ssl-name as SNI to the backend (`on`/`off`, default off).',
    '`sni str(<proxy-ssl-name>)`; a bad value is `off` with a notice.',
    { status: 'honoured' },
  ),
  basic(
    'proxy-ssl-protocols',
    'TLS versions to the backend (default `TLSv1 TLSv1.1 TLSv1.2`, applied with a ca.crt).',
    '`ssl-min-ver`/`ssl-max-ver` of the lowest and highest version named; a bad value is the default with a notice.',
    {
      status: 'deviation',
      deviation:
        'HAProxy takes a range: a list with a gap (TLSv1 TLSv1.2) allows the versions between; SSLv2 is left out (HAProxy cannot speak it).',
    },
  ),
  basic(
    'proxy-ssl-ciphers',
    'OpenSSL cipher list to the backend (default `DEFAULT`, applied with a ca.crt).',
    '`ciphers <list>`; a value that is not an OpenSSL cipher list is the default with a notice.',
    { status: 'honoured' },
  ),
];
