import { describe, expect, it } from 'vitest';
import { externalAuthLines } from './external-auth-lines.js';
import { parseAuthUrl, readExternalAuth } from './external-auth.js';
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
        authority: 'a.b:8443',
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
    expect(parseAuthUrl('http://a/$remote_user')).toBe(
      'the variable $remote_user is not one haptic expands',
    );
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
    expect(lines.slice(-3).map((l) => l.split(' if')[0]?.split(' unless')[0])).toEqual([
      'http-request deny deny_status 401',
      'http-request deny deny_status 403',
      'http-request deny deny_status 500',
    ]);
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
