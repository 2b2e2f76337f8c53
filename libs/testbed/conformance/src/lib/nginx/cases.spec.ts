import { describe, expect, it } from 'vitest';
import { NGINX_CASES } from './runner.js';

const hostsOf = (c: (typeof NGINX_CASES)[number]) =>
  c.objects.flatMap(
    (o) => (o as { spec?: { rules?: { host?: string }[] } }).spec?.rules?.map((r) => r.host) ?? [],
  );

describe('the ingress-nginx suite cases', () => {
  it('have unique names, a readiness step each, and hosts no other case uses', () => {
    const names = NGINX_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of NGINX_CASES) expect(c.steps.length, c.name).toBeGreaterThan(0);
    const owner = new Map<string, string>();
    for (const c of NGINX_CASES)
      for (const h of new Set(hostsOf(c))) {
        expect(owner.get(h ?? ''), `${h} of ${c.name}`).toBeUndefined();
        owner.set(h ?? '', c.name);
      }
  });

  it('cover every annotation the library honours, and the core routing cases', () => {
    const covered = new Set(NGINX_CASES.flatMap((c) => c.annotations));
    for (const a of [
      'ssl-redirect',
      'force-ssl-redirect',
      'permanent-redirect',
      'permanent-redirect-code',
      'temporal-redirect',
      'app-root',
      'rewrite-target',
      'use-regex',
      'enable-cors',
      'cors-allow-origin',
      'cors-allow-methods',
      'cors-allow-headers',
      'cors-allow-credentials',
      'cors-max-age',
      'cors-expose-headers',
      'whitelist-source-range',
      'allowlist-source-range',
      'denylist-source-range',
      'proxy-body-size',
      'backend-protocol',
      'affinity',
      'load-balance',
      'x-forwarded-prefix',
      'server-alias',
      'upstream-vhost',
      'from-to-www-redirect',
      'upstream-hash-by',
      'limit-rps',
      'limit-rpm',
      'limit-burst-multiplier',
      'satisfy',
      'affinity-mode',
      'session-cookie-change-on-failure',
      'session-cookie-conditional-samesite-none',
      'limit-connections',
      'auth-type',
      'auth-secret',
      'auth-secret-type',
      'auth-realm',
      'canary',
      'canary-by-header',
      'canary-by-header-value',
      'canary-by-header-pattern',
      'canary-by-cookie',
      'canary-weight',
      'canary-weight-total',
      'service-upstream',
      'custom-headers',
      'affinity-canary-behavior',
      'custom-http-errors',
      'default-backend',
      'auth-url',
      'auth-response-headers',
      'auth-signin',
      'auth-signin-redirect-param',
      'auth-always-set-cookie',
      'auth-proxy-set-headers',
      'auth-cache-key',
      'auth-cache-duration',
    ])
      expect(covered.has(a), a).toBe(true);
    expect(NGINX_CASES.filter((c) => c.core).length).toBeGreaterThanOrEqual(4);
  });
});
