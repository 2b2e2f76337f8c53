// Catalogue rows: canary, session affinity, CORS, access and rate limits, headers.
import type { AnnotationGroup, NginxAnnotation } from './catalogue-types.js';
import { pending } from './catalogue-routing.js';

const C: AnnotationGroup = 'Canary';
const S: AnnotationGroup = 'Session affinity';
const O: AnnotationGroup = 'CORS';
const A: AnnotationGroup = 'Access and rate limits';
const H: AnnotationGroup = 'Headers';

export const TRAFFIC_ANNOTATIONS: readonly NginxAnnotation[] = [
  pending(
    C,
    'canary',
    'This Ingress is the canary of the Ingress with the same host and path (never a conflict with it); a canary without one is ignored.',
    "The pair's route maps to a split name (`cy_*`) that frontend rules resolve to the canary's backend or the mainline's before `use_backend`.",
    {
      status: 'deviation',
      deviation:
        "The canary backend runs the mainline Ingress's annotations (as ingress-nginx) including its load-balance and affinity (ingress-nginx keeps the canary's own); a second canary of one location is refused (ingress-nginx serves one); the canary's other annotations are read and checked but not applied.",
    },
  ),
  pending(
    C,
    'canary-by-header',
    'Requests with this header `always` go to the canary, `never` to the mainline; other values fall through to the cookie and weight rules.',
    "`req.fhdr(<name>,1) -m str always` / `never` (the first occurrence, as nginx's `$http_<name>`).",
    { status: 'honoured' },
  ),
  pending(
    C,
    'canary-by-header-value',
    'The header value sending a request to the canary (instead of `always`); other values fall through.',
    "An exact `req.fhdr -m str -- '<value>'` match (printable, no single quote).",
    { status: 'honoured' },
  ),
  pending(
    C,
    'canary-by-header-pattern',
    'A regular expression on the header value sending a request to the canary (ignored when canary-by-header-value is set).',
    "An unanchored `req.fhdr -m reg -- '<pattern>'` match (checked as a regular expression, no single quote).",
    { status: 'honoured' },
  ),
  pending(
    C,
    'canary-by-cookie',
    'Requests with this cookie `always` go to the canary, `never` to the mainline; other values fall through to the weight.',
    '`req.cook(<name>) -m str always` / `never`, after the header rules.',
    { status: 'honoured' },
  ),
  pending(
    C,
    'canary-weight',
    'The share of other requests sent to the canary (of canary-weight-total).',
    '`rand(<total>) lt <weight>`: each request goes to the canary with probability weight/total.',
    { status: 'honoured' },
  ),
  pending(
    C,
    'canary-weight-total',
    'The total of canary-weight (100 by default; ingress-nginx uses 100 for any total below it).',
    'The range of `rand`.',
    { status: 'honoured' },
  ),
  pending(
    S,
    'affinity',
    'Sticky sessions; only `cookie` exists.',
    '`cookie <name> insert indirect httponly` and a cookie per server.',
    {
      status: 'deviation',
      deviation:
        'The cookie is set once (HAProxy `insert indirect`), names a server slot, and is not forwarded to the backend.',
      refusedValues: [
        { value: /^(?!cookie$).+/i, reason: 'ingress-nginx knows only `cookie` affinity.' },
      ],
    },
  ),
  pending(
    S,
    'affinity-mode',
    '`balanced` (the default: sessions may move to new endpoints when the Service scales up) or `persistent` (a session stays on its endpoint while it lives).',
    "HAProxy's cookie persistence in both: the cookie names a server and every request carrying it goes there while that server is up; a new client is balanced.",
    {
      status: 'deviation',
      deviation:
        '`balanced` behaves as `persistent`: scaling up moves no existing session (ingress-nginx rehashes part of them); another value refuses the Ingress.',
    },
  ),
  pending(
    S,
    'affinity-canary-behavior',
    "On the canary Ingress: `sticky` (default) gives the canary the mainline's session affinity, so a client sent to the canary stays there; `legacy` leaves the canary without it. Either way a client the mainline's cookie names stays on the mainline.",
    'Before the canary rules, the frontend keeps a request whose affinity cookie names a mainline server on the mainline and, when sticky, one whose cookie names a canary server (value `canary-srvN`) on the canary; with legacy the canary backend sets no cookie. Another value refuses the Ingress.',
    { status: 'honoured' },
  ),
  pending(
    S,
    'session-cookie-name',
    "The cookie's name (`INGRESSCOOKIE` by default).",
    'The `cookie` name.',
    { status: 'honoured' },
  ),
  pending(
    S,
    'session-cookie-path',
    "The cookie's Path (the Ingress path by default).",
    'The matched path (or this one) in a variable; `http-after-response replace-header Set-Cookie` writes it as Path.',
    { status: 'honoured' },
  ),
  pending(S, 'session-cookie-domain', "The cookie's Domain.", '`domain`.', { status: 'honoured' }),
  pending(
    S,
    'session-cookie-expires',
    "The cookie's Expires, in seconds from now.",
    '`http-after-response replace-header Set-Cookie` adding `Expires=` (a date computed per answer).',
    { status: 'honoured' },
  ),
  pending(S, 'session-cookie-max-age', "The cookie's Max-Age in seconds.", '`attr "Max-Age=…"`.', {
    status: 'honoured',
  }),
  pending(S, 'session-cookie-secure', "Set the cookie's Secure flag.", '`secure`.', {
    status: 'honoured',
  }),
  pending(
    S,
    'session-cookie-samesite',
    "The cookie's SameSite (None, Lax, Strict).",
    '`attr "SameSite=…"`.',
    { status: 'honoured' },
  ),
  pending(
    S,
    'session-cookie-conditional-samesite-none',
    'Omit `SameSite=None` for the clients ingress-nginx lists as rejecting it (Chrome 40-69, iOS 12, Safari on macOS 10.14).',
    'A `req.fhdr(user-agent) -m sub` check sets a variable; `http-after-response replace-header Set-Cookie` then drops `; SameSite=None` from the affinity cookie.',
    { status: 'honoured' },
  ),
  pending(
    S,
    'session-cookie-change-on-failure',
    'Issue a new cookie when the chosen endpoint failed (`false`, the default: keep the cookie).',
    '`option redispatch` with `cookie … insert`: a request whose cookie names a server that is down or gone goes to another and gets a new cookie.',
    {
      status: 'deviation',
      deviation:
        'HAProxy always issues the new cookie (the `true` behaviour); with `false` the cookie still changes when its endpoint is down or gone.',
    },
  ),
  pending(
    O,
    'enable-cors',
    'Answer CORS preflights (204) and add CORS headers to answers.',
    '`http-request return status 204` for OPTIONS preflights and `http-after-response set-header` for the rest.',
    { status: 'deviation', deviation: "The preflight's 204 carries no Content-Type header." },
  ),
  pending(
    O,
    'cors-allow-origin',
    'Allowed origins: `*`, a list, `*.` wildcards one level deep, ports as written.',
    'The Origin matched against the list; the matching origin echoed.',
    {
      status: 'deviation',
      deviation:
        "Origins are matched anchored at both ends (ingress-nginx anchors only the end); an origin outside ingress-nginx's grammar refuses the Ingress instead of being skipped.",
    },
  ),
  pending(
    O,
    'cors-allow-methods',
    '`Access-Control-Allow-Methods` (GET, PUT, POST, DELETE, PATCH, OPTIONS by default).',
    'Set on the preflight answer.',
    { status: 'honoured' },
  ),
  pending(
    O,
    'cors-allow-headers',
    '`Access-Control-Allow-Headers` (a default list).',
    'Set on the preflight answer.',
    { status: 'honoured' },
  ),
  pending(
    O,
    'cors-allow-credentials',
    '`Access-Control-Allow-Credentials` (true by default).',
    'Set on answers.',
    { status: 'honoured' },
  ),
  pending(
    O,
    'cors-max-age',
    '`Access-Control-Max-Age` (1728000 by default).',
    'Set on the preflight answer.',
    { status: 'honoured' },
  ),
  pending(O, 'cors-expose-headers', '`Access-Control-Expose-Headers`.', 'Set on answers.', {
    status: 'honoured',
  }),
  pending(
    A,
    'whitelist-source-range',
    'Only these client CIDRs may connect; others get 403.',
    '`http-request deny deny_status 403 unless { src <cidrs> }`.',
    { status: 'honoured' },
  ),
  pending(
    A,
    'allowlist-source-range',
    'The newer name of whitelist-source-range.',
    'As whitelist-source-range.',
    { status: 'honoured' },
  ),
  pending(
    A,
    'denylist-source-range',
    'These client CIDRs get 403.',
    '`http-request deny deny_status 403 if { src <cidrs> }`.',
    { status: 'honoured' },
  ),
  pending(
    A,
    'limit-rps',
    'Requests per second per client address; excess answered 503 (limit-req-status-code).',
    'A stick table tracking `src` with `http_req_rate(1s)` and `deny deny_status 503`.',
    {
      status: 'deviation',
      deviation:
        'A 1-second window: more than limit-rps × limit-burst-multiplier requests from one address in the last second answer 503 (nginx: a leaky bucket with that burst).',
    },
  ),
  pending(
    A,
    'limit-rpm',
    'Requests per minute per client address; excess answered 503 (limit-req-status-code).',
    'The limit-rps stick table also stores `gpc0_rate(60s)`, incremented per request (`sc-inc-gpc0`), and `deny deny_status 503` above the rate.',
    {
      status: 'deviation',
      deviation:
        'A 1-minute window: more than limit-rpm × limit-burst-multiplier requests from one address in the last minute answer 503 (nginx: a leaky bucket with that burst).',
    },
  ),
  pending(
    A,
    'limit-connections',
    'Concurrent connections per client address.',
    'A stick table with `conn_cur`.',
    { status: 'honoured' },
  ),
  pending(
    A,
    'limit-burst-multiplier',
    'The burst allowed above limit-rps/rpm (5 by default).',
    'The rate threshold multiplied.',
    {
      status: 'deviation',
      deviation:
        'See limit-rps and limit-rpm: the multiplier sizes the 1-second and 1-minute windows.',
    },
  ),
  pending(
    A,
    'limit-whitelist',
    'Client CIDRs not rate limited.',
    'The limit rules skipped `if { src <cidrs> }`.',
    { status: 'honoured' },
  ),
  pending(
    H,
    'custom-headers',
    'Headers from a ConfigMap (namespace/name) added to the answer; each name must be in global-allowed-response-headers; a missing ConfigMap answers 503.',
    '`http-after-response set-header`, each value escaped (written literally); the allowed names are the library setting `global_allowed_response_headers`; `http-request deny deny_status 503` when the ConfigMap is missing.',
    {
      status: 'deviation',
      deviation:
        "The ConfigMap must be in the Ingress's namespace (ingress-nginx's documentation; its code reads any); a header name outside ingress-nginx's grammar or not allowed, or a value holding a control character, refuses the Ingress naming the ConfigMap key (ingress-nginx denies its locations with 503); allowed names are compared case-insensitively.",
    },
  ),
  pending(
    A,
    'satisfy',
    '`any`: access or authentication suffices; `all` (default): both are needed.',
    'With `any` and basic auth, a client the source ranges allow is marked (`set-var(txn.nginx_access)`) and skips `http-request auth`; others are asked for credentials (401, as nginx answers when both fail).',
    { status: 'honoured' },
  ),
];
