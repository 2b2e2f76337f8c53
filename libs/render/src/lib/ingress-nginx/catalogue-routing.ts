// Catalogue rows: redirects, rewrites and backends (meanings from ingress-nginx's annotation guide).
import type { AnnotationGroup, NginxAnnotation } from './catalogue-types.js';

/**
 * A catalogue row: what ingress-nginx does and the HAProxy mapping haptic uses; not yet honoured
 * unless `more` gives the status the ingress-nginx library earned.
 */
export function pending(
  group: AnnotationGroup,
  name: string,
  meaning: string,
  haproxy: string,
  more: Partial<NginxAnnotation> = {},
): NginxAnnotation {
  return { name, group, meaning, haproxy, status: 'not-yet-honoured', ...more };
}

const R: AnnotationGroup = 'Redirects and rewrites';
const B: AnnotationGroup = 'Backends';

export const ROUTING_ANNOTATIONS: readonly NginxAnnotation[] = [
  pending(
    R,
    'ssl-redirect',
    'Redirect HTTP to HTTPS (308) when the host has TLS; on by default.',
    '`http-request redirect location https://<host><path> code 308` for the TLS hosts of the Ingress, unless the request is HTTPS.',
    {
      status: 'deviation',
      deviation:
        'Per Ingress: a plain-HTTP request is redirected when the Ingress serving it lists the host in spec.tls (ingress-nginx: when any Ingress gives the host a certificate).',
    },
  ),
  pending(
    R,
    'force-ssl-redirect',
    'Redirect HTTP to HTTPS even without TLS on the Ingress (e.g. TLS ended in front).',
    '`http-request redirect location https://<host><path> code 308` unless the request is already HTTPS.',
    { status: 'honoured' },
  ),
  pending(
    R,
    'permanent-redirect',
    'Answer every request with a redirect to this URL (301 by default).',
    '`http-request redirect location <url> code 301`, the URL escaped.',
    { status: 'honoured' },
  ),
  pending(
    R,
    'permanent-redirect-code',
    'The status of permanent-redirect (300-308; 301 otherwise).',
    'The `code` of the redirect rule.',
    { status: 'honoured' },
  ),
  pending(
    R,
    'temporal-redirect',
    'Answer every request with a 302 redirect to this URL.',
    '`http-request redirect location <url> code 302`.',
    { status: 'deviation', deviation: 'Always 302 (temporal-redirect-code is not read).' },
  ),
  pending(
    R,
    'app-root',
    'Redirect requests for `/` to this path (302).',
    '`http-request redirect location <scheme>://<host><path> code 302 if { path / }`.',
    {
      status: 'deviation',
      deviation:
        'Only when `/` is routed to the Ingress that carries it (ingress-nginx applies it to the whole host).',
    },
  ),
  pending(
    R,
    'rewrite-target',
    "Rewrite the matched path to this target before proxying; `$1`… refer to the path's capture groups (implies use-regex).",
    "`http-request replace-path` with the path's regular expression and the target's groups as `\\1`….",
    {
      status: 'deviation',
      deviation:
        'A target with a query or an nginx variable (other than $1…$9) refuses the Ingress.',
    },
  ),
  pending(
    R,
    'use-regex',
    'Treat every path of the host as a case-insensitive regular expression (nginx `~*`), ordered longest first.',
    "Every path of the host in a `map_reg` map, `^<host>(?i:<path>)`, in ingress-nginx's location order.",
    { status: 'honoured' },
  ),
  pending(
    R,
    'from-to-www-redirect',
    'Redirect `www.host` to `host` (or the reverse) with a 308, keeping the scheme and request URI.',
    '`http-request redirect location <scheme>://<host><path?query> code 308` in the frontend for the other name, unless an Ingress serves that name.',
    {
      status: 'deviation',
      deviation:
        "Over HTTPS the other name gets the certificate whose spec.tls hosts list it, else the default one (ingress-nginx also uses the host's certificate when it covers the other name).",
    },
  ),
  pending(
    R,
    'preserve-trailing-slash',
    'Keep the trailing slash of the URL in the ssl-redirect Location.',
    'The redirect built from the original path.',
    { status: 'honoured' },
  ),
  pending(
    R,
    'x-forwarded-prefix',
    'Send `X-Forwarded-Prefix` with this value to the backend.',
    '`http-request set-header X-Forwarded-Prefix <value>`, escaped.',
    { status: 'honoured' },
  ),
  pending(
    R,
    'server-alias',
    "Additional host names (comma-separated) served like the Ingress's host.",
    "The aliases added to the host's match.",
    { status: 'honoured' },
  ),
  pending(
    R,
    'upstream-vhost',
    'The Host header sent to the backend.',
    '`http-request set-header Host <value>`, escaped.',
    { status: 'honoured' },
  ),
  pending(
    B,
    'backend-protocol',
    'The protocol to the backend: HTTP, HTTPS, GRPC, GRPCS, AUTO_HTTP, FCGI.',
    'Server options: `ssl` for HTTPS/GRPCS, `proto h2` for GRPC(S).',
    {
      status: 'deviation',
      deviation:
        "AUTO_HTTP is HTTP/1.1 to the backend; HTTPS and GRPCS verify the backend's certificate only with proxy-ssl-secret and proxy-ssl-verify, as ingress-nginx.",
      refusedValues: [
        {
          value: /^fcgi$/i,
          reason:
            "HAProxy's FastCGI applications are not generated from an Ingress; serve FastCGI behind an HTTP server.",
        },
      ],
    },
  ),
  pending(
    B,
    'service-upstream',
    "Proxy to the Service's cluster IP instead of its endpoints.",
    'One server line at the ClusterIP and port; a Service without a cluster IP (headless) keeps its endpoints, as ingress-nginx falls back to them.',
    { status: 'honoured' },
  ),
  pending(
    B,
    'default-backend',
    'The Service (same namespace) answering when no endpoint is available, and for custom-http-errors.',
    "The Service's backend (its first port, as ingress-nginx takes it) answers while the Ingress's backend has no usable server (`use_backend … if { nbsrv(…) eq 0 }`); a missing Service is a Warning Event and the Ingress is served without it.",
    { status: 'honoured' },
  ),
  pending(
    B,
    'custom-http-errors',
    "Status codes of the backend answer replaced by the default backend's, which gets `X-Code`, `X-Format`, `X-Original-URI`… headers.",
    "The library's vetted Lua action (files/error-page.lua.liquid, docs/adr/0013) runs on the Ingress backend's answers: for a listed status it sends `GET /` to a usable server of the Ingress's default-backend Service (else of the library's default_backend_service) with X-Code, X-Format (the request's Accept), X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port, X-Request-ID, X-Forwarded-For and the Host, and answers with the default backend's status, Content-Type and body. Without either, the answer is the library's 404 page (ingress-nginx's own default backend answers 404). Codes are 4xx and 5xx separated by commas (another value refuses the Ingress); without the annotation the library's custom_http_errors apply (ingress-nginx's ConfigMap setting), and an empty annotation turns them off.",
    {
      status: 'deviation',
      deviation:
        "The error request is always a GET without body (nginx keeps the method); X-Request-ID is the client's (ingress-nginx generates one when absent); when the default backend has no server up, the backend's own answer goes on, and when its server cannot be reached the answer is 503 (nginx answers 502 in both cases; a server that closes without an answer gives 502 in both); only the answer's Content-Type is kept of its headers; with the library's custom_http_errors, an Ingress without ingress-nginx annotations shares its Service's backend with others, so its error request has an empty X-Ingress-Name.",
    },
  ),
  pending(
    B,
    'proxy-body-size',
    'The largest request body accepted (nginx size, e.g. `8m`); larger answers 413.',
    '`http-request deny deny_status 413 if { req.hdr_val(content-length) gt N }`.',
    {
      status: 'deviation',
      deviation:
        "Checked on the request's Content-Length: a chunked body without one is not limited.",
    },
  ),
  pending(
    B,
    'proxy-connect-timeout',
    'Timeout for connecting to the backend (seconds).',
    '`timeout connect`.',
    { status: 'honoured' },
  ),
  pending(
    B,
    'proxy-read-timeout',
    'Timeout between two reads from the backend (seconds).',
    '`timeout server`.',
    {
      status: 'deviation',
      deviation:
        'HAProxy has one server timeout: the larger of proxy-read-timeout and proxy-send-timeout.',
    },
  ),
  pending(
    B,
    'proxy-send-timeout',
    'Timeout between two writes to the backend (seconds).',
    '`timeout server` (HAProxy has one timeout for both directions).',
    {
      status: 'deviation',
      deviation:
        'HAProxy has one server timeout: the larger of proxy-read-timeout and proxy-send-timeout.',
    },
  ),
  pending(
    B,
    'proxy-next-upstream',
    'On which failures a request is passed to the next endpoint: error, timeout, invalid_header, http_500/502/503/504/403/404/429, non_idempotent, off (default `error timeout`).',
    '`retry-on`: error as `conn-failure empty-response`, timeout as `conn-failure response-timeout`, invalid_header as `empty-response junk-response`, http_NNN as `NNN`, off as `retry-on none` with `retries 0`; `option redispatch 1`; without non_idempotent, `http-request disable-l7-retry if { method POST PATCH LOCK }`.',
    {
      status: 'deviation',
      deviation:
        "HAProxy's conn-failure covers a refused and a timed-out connection alike (nginx's error and timeout each retry both); a request whose body does not fit one buffer (tune.bufsize) is retried only on conn-failure; http_429 refuses the Ingress (HAProxy 2.6's retry-on has no 429).",
      refusedValues: [
        {
          value: /(^|\s)http_429(\s|$)/i,
          reason: "HAProxy 2.6's retry-on cannot retry on a 429 answer.",
        },
      ],
    },
  ),
  pending(
    B,
    'proxy-next-upstream-timeout',
    'The time limit (seconds, 0 = none, the default) of passing a request on to the next endpoint.',
    'None: HAProxy has no time limit over all the attempts of a request.',
    {
      status: 'deviation',
      deviation:
        'Checked (whole seconds), not enforced: HAProxy bounds each attempt by timeout connect and timeout server, and the attempts by proxy-next-upstream-tries, not their total time.',
    },
  ),
  pending(
    B,
    'proxy-next-upstream-tries',
    'How many endpoints a request is tried on, the first attempt included (default 3).',
    '`retries <tries - 1>`.',
    {
      status: 'deviation',
      deviation:
        '0 (no limit) and more than 100 tries refuse the Ingress: HAProxy needs a number of retries.',
      refusedValues: [
        { value: /^0+$/, reason: 'HAProxy needs a number of retries; give the tries.' },
      ],
    },
  ),
  pending(
    B,
    'proxy-buffering',
    "Buffer the backend's answer.",
    'None needed: HAProxy streams; to be documented as a no-op.',
    {
      status: 'deviation',
      deviation: 'No effect: HAProxy streams answers and needs no buffering switch.',
    },
  ),
  pending(
    B,
    'proxy-request-buffering',
    'Buffer the whole request body before proxying (`on`, the default); `off` streams it.',
    '`option http-buffer-request` when on (HAProxy streams the body by default); nothing when off.',
    {
      status: 'deviation',
      deviation:
        "HAProxy buffers one buffer (tune.bufsize) of the body, then streams the rest, and waits for it at most timeout http-request (408 after); gRPC backends are never buffered (as nginx's grpc_pass).",
    },
  ),
  pending(
    B,
    'proxy-buffer-size',
    "The size of the buffer for the answer's headers.",
    "None per backend (HAProxy's `tune.bufsize` is global); to be documented as a no-op.",
    {
      status: 'deviation',
      deviation: "No effect: HAProxy's buffer size is global (tune.bufsize), not per backend.",
    },
  ),
  pending(
    B,
    'load-balance',
    'The balancing algorithm: round_robin or ewma.',
    '`balance roundrobin` (ewma as `leastconn`).',
    { status: 'deviation', deviation: "ewma is HAProxy's leastconn." },
  ),
  pending(
    B,
    'upstream-hash-by',
    'Consistent hashing on an nginx variable (e.g. `$request_uri`); takes over from load-balance.',
    '`balance hash` on the key built from the matching fetches (`pathq`, `path`, `req.hdr()`, `req.cook()`, `url_param()`…) with `hash-type consistent`.',
    {
      status: 'deviation',
      deviation:
        "Maps $request_uri, $uri, $document_uri, $args, $query_string, $host, $remote_addr, $scheme, $request_method, $http_*, $cookie_*, $arg_* and plain text; another variable refuses the Ingress. The hash ring is HAProxy's, so which endpoint a key lands on differs from nginx's.",
    },
  ),
  pending(
    B,
    'ssl-passthrough',
    "Send the host's TLS connections, by SNI and undecrypted, to the Service of its root location (path `/`); only with the controller's --enable-ssl-passthrough. Plain HTTP to the host is proxied as usual; HTTP annotations do not apply to the passed-through connections.",
    "With the library setting `enable_ssl_passthrough: true`: the HTTPS port becomes a `mode tcp` frontend (`tcp-request inspect-delay`, `tcp-request content accept if { req.ssl_hello_type 1 }`) that sends a passed-through SNI (`req.ssl_sni,lower` in `maps/passthrough.map`) to a TCP backend of the Service's endpoints (`pt_<ns>_<service>_<port>`), and every other connection (another SNI, none) to the TLS-terminating bind, now on an internal `abns@` socket named after the pod's address, reached with `send-proxy-v2` (the client's address kept). Without the setting, the annotation is reported and the host's TLS is terminated.",
    {
      status: 'deviation',
      deviation:
        "HAProxy balances the connections over the Service's endpoints (ingress-nginx dials its cluster IP, kube-proxy balancing). Needs enable_ssl_passthrough: true, as ingress-nginx needs --enable-ssl-passthrough.",
    },
  ),
];
