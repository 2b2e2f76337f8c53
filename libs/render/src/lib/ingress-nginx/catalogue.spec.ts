import { describe, expect, it } from 'vitest';
import { NGINX_ANNOTATIONS, judgeAnnotation, nginxAnnotation } from './catalogue.js';
import { NGINX_PREFIX } from './catalogue-types.js';

// Every annotation issue 34 names, and the authentication ones issue 35 names.
const ISSUE_34 =
  `rewrite-target use-regex app-root ssl-redirect force-ssl-redirect permanent-redirect
permanent-redirect-code temporal-redirect from-to-www-redirect preserve-trailing-slash
x-forwarded-prefix server-alias upstream-vhost backend-protocol service-upstream default-backend
custom-http-errors proxy-body-size proxy-connect-timeout proxy-read-timeout proxy-send-timeout
proxy-next-upstream proxy-next-upstream-timeout proxy-next-upstream-tries proxy-buffering
proxy-request-buffering proxy-buffer-size load-balance upstream-hash-by ssl-passthrough canary
canary-by-header canary-by-header-value canary-by-header-pattern canary-by-cookie canary-weight
canary-weight-total affinity affinity-mode session-cookie-name session-cookie-path
session-cookie-domain session-cookie-expires session-cookie-max-age session-cookie-secure
session-cookie-samesite session-cookie-conditional-samesite-none session-cookie-change-on-failure
affinity-canary-behavior enable-cors cors-allow-origin cors-allow-methods cors-allow-headers
cors-allow-credentials cors-max-age cors-expose-headers whitelist-source-range
allowlist-source-range denylist-source-range limit-rps limit-rpm limit-connections
limit-burst-multiplier limit-whitelist custom-headers satisfy configuration-snippet server-snippet
stream-snippet auth-snippet modsecurity-snippet`.split(/\s+/);
const ISSUE_35 = `auth-type auth-secret auth-secret-type auth-realm auth-url auth-method auth-signin
auth-signin-redirect-param auth-request-redirect auth-response-headers auth-proxy-set-headers
auth-cache-key auth-cache-duration auth-always-set-cookie auth-tls-secret auth-tls-verify-client
auth-tls-verify-depth auth-tls-error-page auth-tls-pass-certificate-to-upstream auth-tls-match-cn
proxy-ssl-secret proxy-ssl-verify proxy-ssl-verify-depth proxy-ssl-name proxy-ssl-server-name
proxy-ssl-protocols proxy-ssl-ciphers`.split(/\s+/);
// What the ingress-nginx library honours (status honoured, or deviation with its deviation named).
const HONOURED = `ssl-redirect force-ssl-redirect permanent-redirect permanent-redirect-code
temporal-redirect app-root rewrite-target use-regex preserve-trailing-slash x-forwarded-prefix
server-alias upstream-vhost backend-protocol proxy-body-size proxy-connect-timeout
proxy-read-timeout proxy-send-timeout proxy-buffering proxy-buffer-size load-balance affinity
session-cookie-name session-cookie-path session-cookie-domain session-cookie-expires
session-cookie-max-age session-cookie-secure session-cookie-samesite affinity-mode
session-cookie-change-on-failure session-cookie-conditional-samesite-none enable-cors cors-allow-origin
cors-allow-methods cors-allow-headers cors-allow-credentials cors-max-age cors-expose-headers
whitelist-source-range allowlist-source-range denylist-source-range limit-rps limit-rpm limit-connections
limit-burst-multiplier limit-whitelist satisfy auth-type auth-secret auth-secret-type auth-realm
canary canary-by-header canary-by-header-value canary-by-header-pattern canary-by-cookie
canary-weight canary-weight-total auth-tls-secret auth-tls-verify-client auth-tls-error-page
auth-tls-pass-certificate-to-upstream auth-tls-match-cn auth-url auth-method auth-signin
auth-signin-redirect-param auth-request-redirect auth-response-headers auth-proxy-set-headers
auth-cache-key auth-cache-duration auth-always-set-cookie from-to-www-redirect upstream-hash-by proxy-next-upstream proxy-next-upstream-timeout
proxy-next-upstream-tries proxy-request-buffering service-upstream custom-headers
default-backend custom-http-errors affinity-canary-behavior ssl-passthrough`.split(/\s+/);
// The basic-auth and client-certificate slices of issue 35 (honoured); the rest is planned.
const BASIC_AUTH = ['auth-type', 'auth-secret', 'auth-secret-type', 'auth-realm'];
const CLIENT_CERTS = [
  'auth-tls-secret',
  'auth-tls-verify-client',
  'auth-tls-error-page',
  'auth-tls-pass-certificate-to-upstream',
  'auth-tls-match-cn',
];
// The external-auth slice of issue 35 (honoured or a deviation).
const EXTERNAL_AUTH = [
  'auth-url',
  'auth-method',
  'auth-signin',
  'auth-signin-redirect-param',
  'auth-request-redirect',
  'auth-response-headers',
  'auth-proxy-set-headers',
  'auth-cache-key',
  'auth-cache-duration',
  'auth-always-set-cookie',
];
const CLAIMED_35 = [...BASIC_AUTH, ...CLIENT_CERTS, ...EXTERNAL_AUTH];
// The backend-TLS slice of issue 35 (honoured).
const BACKEND_TLS = `proxy-ssl-secret proxy-ssl-verify proxy-ssl-verify-depth proxy-ssl-name
proxy-ssl-server-name proxy-ssl-protocols proxy-ssl-ciphers`.split(/\s+/);
const SNIPPETS = [
  'configuration-snippet',
  'server-snippet',
  'stream-snippet',
  'auth-snippet',
  'modsecurity-snippet',
];

describe('the ingress-nginx annotation catalogue', () => {
  it('names every annotation of both issues exactly once, and no other', () => {
    const names = NGINX_ANNOTATIONS.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...ISSUE_34, ...ISSUE_35].sort());
  });

  it('refuses the snippets with a reason, and plans the authentication ones without refusing', () => {
    for (const name of SNIPPETS) {
      const row = nginxAnnotation(NGINX_PREFIX + name);
      expect(row?.status, name).toBe('refused');
      expect(row?.reason, name).toMatch(/never pasted/);
    }
    const built = [...CLAIMED_35, ...BACKEND_TLS];
    for (const name of ISSUE_35.filter((n) => !built.includes(n))) {
      const row = nginxAnnotation(NGINX_PREFIX + name);
      expect({ name, status: row?.status, planned: row?.planned }).toEqual({
        name,
        status: 'not-yet-honoured',
        planned: 'issue 35',
      });
    }
  });

  it('gives every row its meaning and mapping, and each status what qualifies it', () => {
    for (const a of NGINX_ANNOTATIONS) {
      expect(a.meaning.length, a.name).toBeGreaterThan(10);
      expect(a.haproxy.length, a.name).toBeGreaterThan(3);
      if (a.status === 'refused') expect(a.reason, a.name).toBeTruthy();
      if (a.status === 'deviation') expect(a.deviation, a.name).toBeTruthy();
    }
  });

  it('claims exactly what the ingress-nginx library honours (its validation tests cover each)', () => {
    // Change this list only with the library (helm/haptic/libraries/ingress-nginx) and its tests.
    const claimed = NGINX_ANNOTATIONS.filter(
      (a) => a.status === 'honoured' || a.status === 'deviation',
    );
    expect(claimed.map((a) => a.name).sort()).toEqual([...HONOURED, ...BACKEND_TLS].sort());
    // of issue 35, basic auth, client certificates, external auth and backend TLS are claimed
    expect(
      claimed
        .filter((a) => ISSUE_35.includes(a.name))
        .map((a) => a.name)
        .sort(),
    ).toEqual([...CLAIMED_35, ...BACKEND_TLS].sort());
  });
});

describe('judgeAnnotation', () => {
  const judge = (name: string, value = 'x') => judgeAnnotation(NGINX_PREFIX + name, value);

  it('calls an ingress-nginx-prefixed name outside the catalogue unknown', () => {
    expect(judge('rewrite-targett')).toMatchObject({
      annotation: `${NGINX_PREFIX}rewrite-targett`,
      verdict: 'unknown',
    });
    expect(judgeAnnotation('example.com/rewrite-target', 'x').verdict).toBe('unknown');
  });

  it('refuses the values haptic never honours, naming the value', () => {
    expect(judge('backend-protocol', ' FCGI ')).toMatchObject({
      verdict: 'refused',
      detail: expect.stringMatching(/^value " FCGI ": .*FastCGI/) as unknown,
    });
    expect(judge('affinity', 'ip').verdict).toBe('refused');
    expect(judge('auth-type', 'digest')).toMatchObject({
      verdict: 'refused',
      detail: expect.stringMatching(/^value "digest": HAProxy has no digest/) as unknown,
    });
    expect(judge('auth-type', 'basic').verdict).toBe('honoured');
    expect(judge('custom-http-errors', '404,503')).toMatchObject({
      verdict: 'deviation',
      detail: expect.stringMatching(/^The error request is always a GET/) as unknown,
    });
    expect(judge('auth-secret', 'users').detail).toMatch(/apr1 .* left out with a notice/);
  });

  it('judges accepted values by the row status, naming the plan', () => {
    expect(judge('default-backend', 'fallback')).toEqual({
      annotation: `${NGINX_PREFIX}default-backend`,
      verdict: 'honoured',
      detail: '',
    });
    expect(judge('enable-cors', 'true')).toEqual({
      annotation: `${NGINX_PREFIX}enable-cors`,
      verdict: 'deviation',
      detail: "The preflight's 204 carries no Content-Type header.",
    });
    expect(judge('use-regex', 'true')).toMatchObject({ verdict: 'honoured', detail: '' });
    expect(judge('affinity', 'cookie').verdict).toBe('deviation');
    // empty: no affinity, as in ingress-nginx
    expect(judge('affinity', '').verdict).toBe('deviation');
    expect(judge('auth-tls-verify-depth', '2').detail).toBe('planned: issue 35, not refused');
    expect(judge('auth-cache-key', '$host').verdict).toBe('deviation');
    expect(judge('server-snippet', 'return 200;')).toMatchObject({
      verdict: 'refused',
      detail: expect.stringMatching(/never pasted/) as unknown,
    });
  });
});
