import { describe, expect, it } from 'vitest';
import { externalAuthLines } from './external-auth-lines.js';
import {
  authProxyHeadersOf,
  parseAuthUrl,
  parseCacheDuration,
  readExternalAuth,
} from './external-auth.js';
import { NginxReader } from './reader.js';

const P = 'nginx.ingress.kubernetes.io/';
const ing = (annotations: Record<string, string>) => ({
  metadata: { namespace: 'apps', name: 'web', annotations },
});
const read = (a: Record<string, string>) =>
  readExternalAuth(
    new NginxReader(ing(Object.fromEntries(Object.entries(a).map(([k, v]) => [P + k, v]))), {}),
  );
const hv = (v: string) => `"${v.replace(/%/g, '%%')}"`;

describe('parseAuthUrl', () => {
  it('splits nginx variables into fetches, both spellings', () => {
    expect(parseAuthUrl('https://a.b:8443/x?h=$host&u=${escaped_request_uri}&q=$arg_next')).toEqual(
      {
        authority: [{ text: 'a.b:8443' }],
        parts: [
          { text: 'https://a.b:8443/x?h=' },
          { fetch: 'var(txn.host)' },
          { text: '&u=' },
          { fetch: 'pathq,url_enc' },
          { text: '&q=' },
          { fetch: 'urlp(next)' },
        ],
      },
    );
  });

  it('refuses what is not a URL of the grammar, naming the problem', () => {
    expect(parseAuthUrl('ftp://a/b')).toMatch(/not an http/);
    expect(parseAuthUrl('http://a/b c')).toMatch(/has " "/);
    expect(parseAuthUrl('http://a/%zz')).toMatch(/has "%"/);
    expect(parseAuthUrl('http://a/$upstream_addr')).toBe(
      'the variable $upstream_addr is not one haptic expands',
    );
    expect(parseAuthUrl('http://$nope/x')).toBe('the variable $nope is not one haptic expands');
    expect(parseAuthUrl('http://$host_x:80:1/')).toMatch(/not one haptic expands/);
    expect(parseAuthUrl('http://a.b:123456/')).toMatch(/with a host name/);
  });

  it("takes a variable host, as ingress-nginx's e2e auth-signin http://$host/auth/start", () => {
    expect(parseAuthUrl('http://$host/auth/start')).toEqual({
      authority: [{ fetch: 'var(txn.host)' }],
      parts: [{ text: 'http://' }, { fetch: 'var(txn.host)' }, { text: '/auth/start' }],
    });
    expect(parseAuthUrl('https://${http_host}:8443/oauth2/auth')).toEqual({
      authority: [{ fetch: 'req.hdr(host)' }, { text: ':8443' }],
      parts: [{ text: 'https://' }, { fetch: 'req.hdr(host)' }, { text: ':8443/oauth2/auth' }],
    });
  });
});

describe('readExternalAuth and its lines', () => {
  it('is nothing without auth-url', () => {
    expect(read({ 'auth-signin': 'https://l/x' })).toBeUndefined();
    expect(externalAuthLines(undefined, hv)).toEqual([]);
  });

  it('writes literal text quoted (percent doubled) and the answers in nginx order', () => {
    const a = read({ 'auth-url': 'http://auth/c%20k', 'auth-signin': 'https://l/s?rd=x' });
    const lines = externalAuthLines(a, hv);
    expect(lines[0]).toBe('http-request set-var-fmt(txn.nginx_auth_url) "http://auth/c%%20k"');
    // the signin URL already carries rd: left as it is
    expect(lines.filter((l) => l.includes('redirect location'))).toEqual([
      'http-request redirect location "https://l/s?rd=x" code 302 if { var(txn.nginx_auth_status) -m int 401 }',
    ]);
    expect(lines.slice(-5).map((l) => l.split(' if')[0]?.split(' unless')[0])).toEqual([
      'http-request deny deny_status 401',
      'http-request deny deny_status 403',
      'http-request deny deny_status 500',
      'http-after-response set-header WWW-Authenticate %[var(txn.nginx_auth_www)]',
      'http-after-response add-header Set-Cookie %[var(txn.nginx_auth_cookie)]',
    ]);
  });

  it("adds the auth service's Set-Cookie on nginx's add_header statuses, on every answer with auth-always-set-cookie", () => {
    const cookieLine = (a: Record<string, string>) =>
      externalAuthLines(read({ 'auth-url': 'http://a/', ...a }), hv).at(-1);
    expect(cookieLine({})).toBe(
      'http-after-response add-header Set-Cookie %[var(txn.nginx_auth_cookie)] if { var(txn.nginx_auth_cookie) -m found } { status 200 201 204 206 301 302 303 304 307 308 }',
    );
    expect(cookieLine({ 'auth-always-set-cookie': 'true' })).toBe(
      'http-after-response add-header Set-Cookie %[var(txn.nginx_auth_cookie)] if { var(txn.nginx_auth_cookie) -m found }',
    );
    expect(() => read({ 'auth-url': 'http://a/', 'auth-always-set-cookie': 'yes' })).toThrow(
      /auth-always-set-cookie: "yes" is not true or false/,
    );
  });

  it('keys the cache by host, backend and the expanded auth-cache-key, lifetimes per status', () => {
    const a = read({
      'auth-url': 'http://a/',
      'auth-cache-key': '$remote_user$http_authorization',
    });
    expect(a?.cache?.ttl).toEqual(
      new Map([
        [200, 300],
        [202, 300],
        [401, 300],
      ]),
    );
    const lines = externalAuthLines(a, hv, 'ing_apps_web_svc_80');
    expect(lines.filter((l) => /nginx_auth_c(key|ttl)/.test(l))).toEqual([
      'http-request set-var-fmt(txn.nginx_auth_ckey) %[var(txn.host)]" ing_apps_web_svc_80 "%[http_auth_user]%[req.hdr(authorization)]',
      'http-request set-var-fmt(txn.nginx_auth_cttl) "200=300,202=300,401=300"',
    ]);
    // no key: no cache, whatever the duration
    expect(
      read({ 'auth-url': 'http://a/', 'auth-cache-duration': '200 1m' })?.cache,
    ).toBeUndefined();
    expect(() => read({ 'auth-url': 'http://a/', 'auth-cache-key': 'a b' })).toThrow(
      /auth-cache-key: "a b" is not letters/,
    );
  });

  it("reads auth-cache-duration as nginx's proxy_cache_valid list", () => {
    expect(parseCacheDuration('200 201 401 30m')).toEqual(
      new Map([
        [200, 1800],
        [201, 1800],
        [401, 1800],
      ]),
    );
    expect(parseCacheDuration('200 202 10m, 401 1h 30s')).toEqual(
      new Map([
        [200, 600],
        [202, 600],
        [401, 3630],
      ]),
    );
    // a time alone: 200, 301 and 302, as nginx
    expect(parseCacheDuration('5m')).toEqual(
      new Map([
        [200, 300],
        [301, 300],
        [302, 300],
      ]),
    );
    expect(parseCacheDuration('200 5m 401')).toMatch(/is not \[code \.\.\.\] time/);
    expect(parseCacheDuration('200 401')).toMatch(/has no time/);
    expect(() =>
      read({ 'auth-url': 'http://a/', 'auth-cache-key': 'k', 'auth-cache-duration': '200 5x' }),
    ).toThrow(/auth-cache-duration: "200 5x" is not/);
  });

  it('sends auth-proxy-set-headers from a ConfigMap of the namespace; missing or invalid denies (503)', () => {
    const a = read({ 'auth-url': 'http://a/', 'auth-proxy-set-headers': 'auth-headers' });
    expect(a?.proxyHeaders).toEqual({ namespace: 'apps', name: 'auth-headers' });
    const cm = (data: Record<string, string>) => () => [{ data }];
    const got = authProxyHeadersOf(
      { namespace: 'apps', name: 'auth-headers' },
      cm({ 'X-Group': 'team $http_x_team', 'X-Empty': '', 'X-Cost': '5$' }),
    );
    expect(got.headers).toEqual([
      ['X-Cost', [{ text: '5$' }]],
      ['X-Empty', []],
      ['X-Group', [{ text: 'team ' }, { fetch: 'req.hdr(x-team)' }]],
    ]);
    const lines = externalAuthLines(a, hv, 'b', got.headers);
    expect(lines.filter((l) => l.includes('nginx_auth_p'))).toEqual([
      'http-request set-var-fmt(txn.nginx_auth_pnames) "X-Cost,X-Empty,X-Group"',
      'http-request set-var-fmt(txn.nginx_auth_p0) "5$"',
      'http-request set-var-fmt(txn.nginx_auth_p1) ""',
      'http-request set-var-fmt(txn.nginx_auth_p2) "team "%[req.hdr(x-team)]',
    ]);
    expect(authProxyHeadersOf({ namespace: 'apps', name: 'x' }, () => []).denied).toBe(
      'auth-proxy-set-headers: ConfigMap apps/x not found; its locations answer 503',
    );
    expect(authProxyHeadersOf({ namespace: 'apps', name: 'x' }, cm({ 'X A': '1' })).denied).toMatch(
      /ConfigMap apps\/x key "X A" is not a header name/,
    );
    expect(authProxyHeadersOf({ namespace: 'apps', name: 'x' }, cm({ A: '$nope' })).denied).toMatch(
      /key "A": the value the variable \$nope is not one haptic expands/,
    );
    expect(() => read({ 'auth-url': 'http://a/', 'auth-proxy-set-headers': 'other/h' })).toThrow(
      /ConfigMap other\/h is in another namespace/,
    );
  });

  it('refuses bad companions naming the annotation', () => {
    expect(() => read({ 'auth-url': 'http://a/', 'auth-method': 'PATCH' })).toThrow(
      /auth-method: "PATCH" is not one of GET, HEAD, POST, PUT, DELETE/,
    );
    expect(() => read({ 'auth-url': 'http://a/', 'auth-response-headers': 'X-A, X#B' })).toThrow(
      /auth-response-headers: "X#B" is not an HTTP header name/,
    );
    expect(() =>
      read({
        'auth-url': 'http://a/',
        'auth-signin': 'http://l/',
        'auth-signin-redirect-param': 'a b',
      }),
    ).toThrow(/auth-signin-redirect-param/);
  });
});
