// Catalogue rows: snippets (refused) and authentication (planned in issue 35, never refused).
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

export const AUTH_ANNOTATIONS: readonly NginxAnnotation[] = [
  snippet('configuration-snippet', 'nginx directives pasted into the location.'),
  snippet('server-snippet', 'nginx directives pasted into the server block.'),
  snippet('stream-snippet', 'nginx directives pasted into the stream block.'),
  snippet('auth-snippet', 'nginx directives pasted into the auth_request location.'),
  snippet('modsecurity-snippet', 'ModSecurity rules for the location.'),
  auth(
    'auth-type',
    'Authentication type: `basic` or `digest`.',
    'A `userlist` and `http-request auth`.',
    {
      refusedValues: [{ value: /^digest$/i, reason: 'HAProxy has no digest authentication.' }],
    },
  ),
  auth('auth-secret', 'The Secret holding the users (namespace/name).', 'The `userlist` users.'),
  auth(
    'auth-secret-type',
    '`auth-file` (an htpasswd file) or `auth-map` (user: hash keys).',
    'How the Secret is read into the userlist.',
  ),
  auth(
    'auth-realm',
    'The realm of `WWW-Authenticate`.',
    '`http-request auth realm <realm>`, escaped.',
  ),
  auth(
    'auth-url',
    'External authentication: a subrequest to this URL decides (2xx lets through).',
    'A vetted Lua action (or SPOE) calling the URL.',
  ),
  auth('auth-method', 'The method of the auth subrequest.', 'The method of that call.'),
  auth(
    'auth-signin',
    'Where a 401 from the auth service redirects (with `rd=`).',
    'A 302 with the original URL.',
  ),
  auth(
    'auth-signin-redirect-param',
    'The name of the `rd` query parameter.',
    'The parameter of that redirect.',
  ),
  auth(
    'auth-request-redirect',
    'The `X-Auth-Request-Redirect` sent to the auth service.',
    'A header of the auth call.',
  ),
  auth(
    'auth-response-headers',
    'Headers of the auth answer copied to the upstream request.',
    "`http-request set-header` from the call's variables.",
  ),
  auth(
    'auth-proxy-set-headers',
    'Headers (from a ConfigMap) sent to the auth service.',
    'Headers of the auth call.',
  ),
  auth('auth-cache-key', 'The key of cached auth answers.', 'A cache keyed by the expanded key.'),
  auth(
    'auth-cache-duration',
    'How long auth answers are cached, per status.',
    'The lifetime of cached answers.',
  ),
  auth(
    'auth-always-set-cookie',
    "Pass the auth service's Set-Cookie on every answer.",
    '`http-after-response add-header Set-Cookie`.',
  ),
  auth(
    'auth-tls-secret',
    'CA bundle (and optional CRL) to verify client certificates.',
    "`ca-file`/`crl-file` on the host's crt-list line.",
  ),
  auth(
    'auth-tls-verify-client',
    '`on`, `off`, `optional`, `optional_no_ca`.',
    '`verify` per SNI with a 400 answer on failure.',
  ),
  auth('auth-tls-verify-depth', 'The certificate chain depth.', "A check of the chain's depth."),
  auth(
    'auth-tls-error-page',
    'Where a failed verification redirects.',
    'A redirect instead of the 400.',
  ),
  auth(
    'auth-tls-pass-certificate-to-upstream',
    'Send the client certificate as `ssl-client-cert` (URL-encoded PEM).',
    '`http-request set-header ssl-client-cert`.',
  ),
  auth(
    'auth-tls-match-cn',
    "A regular expression the client certificate's CN must match.",
    'A `ssl_c_s_dn(cn)` match.',
  ),
  auth(
    'proxy-ssl-secret',
    'Client certificate and CA for TLS to the backend.',
    '`crt`/`ca-file` on server lines.',
  ),
  auth('proxy-ssl-verify', "Verify the backend's certificate.", '`verify required`.'),
  auth('proxy-ssl-verify-depth', 'The backend chain depth.', 'A verification depth.'),
  auth('proxy-ssl-name', "The name checked in the backend's certificate.", '`verifyhost`.'),
  auth('proxy-ssl-server-name', 'Send SNI to the backend.', '`sni`.'),
  auth('proxy-ssl-protocols', 'TLS versions to the backend.', '`ssl-min-ver`/`ssl-max-ver`.'),
  auth('proxy-ssl-ciphers', 'Ciphers to the backend.', '`ciphers`.'),
];
