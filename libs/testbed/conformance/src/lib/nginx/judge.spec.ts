import { describe, expect, it } from 'vitest';
import type { Answer, Seen } from './http.js';
import { cookieLine, cookieValue, judge, podCounts, statusCounts } from './judge.js';

const seen = (over: Partial<Seen> = {}): Seen => ({
  path: '/p?q=1',
  host: 'a.nginx.test',
  method: 'GET',
  headers: { 'X-Forwarded-Prefix': ['/x'] },
  service: 'echo',
  pod: 'echo-1',
  ...over,
});
const answer = (over: Partial<Answer> = {}): Answer => ({
  status: 200,
  headers: { 'access-control-allow-origin': '*' },
  cookies: ['SERVERID=abc; Path=/something; Max-Age=60'],
  body: '',
  seen: seen(),
  ...over,
});

describe('the ingress-nginx suite judge', () => {
  it('judges the certificate the server presented (passed through or terminated)', () => {
    const a = answer({ serverCertificate: 'echo-tls' });
    expect(judge(a, { serverCertificate: 'echo-tls' })).toBeUndefined();
    expect(judge(a, { serverCertificate: '*.nginx.test' })).toBe(
      'the server presented a certificate for "echo-tls", expected "*.nginx.test"',
    );
    expect(judge(answer(), { serverCertificate: 'echo-tls' })).toMatch(/for undefined/);
  });

  it('passes an answer that matches every field asked for', () => {
    expect(
      judge(answer(), {
        status: 200,
        service: 'echo',
        path: '/p?q=1',
        backendHost: 'a.nginx.test',
        backendTls: false,
        backendHeaders: { 'X-Forwarded-Prefix': '/x', 'X-Other': null },
        headers: { 'Access-Control-Allow-Origin': '*', 'access-control-max-age': null },
        cookie: { name: 'SERVERID', contains: ['path=/something', 'Max-Age=60'] },
      }),
    ).toBeUndefined();
  });

  it('fails each field on its own', () => {
    expect(judge(answer({ status: 404 }), { status: 200 })).toMatch(/status 404, expected 200/);
    expect(judge(answer(), { service: 'echo-b' })).toMatch(/served by "echo"/);
    expect(judge(answer(), { path: '/' })).toMatch(/path "\/p\?q=1"/);
    expect(judge(answer(), { backendHost: 'b' })).toMatch(/Host "a.nginx.test"/);
    expect(judge(answer(), { backendTls: true })).toMatch(/without TLS/);
    expect(
      judge(answer({ seen: seen({ tls: { version: 'TLSv1.3' } }) }), { backendTls: false }),
    ).toMatch(/over TLS/);
    expect(judge(answer(), { backendHeaders: { 'X-Forwarded-Prefix': null } })).toMatch(
      /expected absent/,
    );
    expect(judge(answer(), { backendHeaders: { 'X-Missing': 'v' } })).toMatch(/absent/);
    expect(judge(answer(), { headers: { 'access-control-allow-origin': null } })).toMatch(
      /expected absent/,
    );
    expect(judge(answer(), { headers: { 'access-control-allow-origin': /^https:/ } })).toMatch(
      /expected/,
    );
    expect(judge(answer(), { cookie: { name: 'INGRESSCOOKIE' } })).toMatch(
      /Set-Cookie for INGRESSCOOKIE/,
    );
    expect(judge(answer(), { cookie: { name: 'SERVERID', contains: ['Secure'] } })).toMatch(
      /lacks/,
    );
    expect(judge(answer(), { cookie: null })).toMatch(/no Set-Cookie/);
    expect(judge(answer(), { cookie: { name: 'SERVERID', lacks: ['; max-age'] } })).toMatch(
      /has \["; max-age"\]/,
    );
    expect(judge(answer(), { cookie: { name: 'SERVERID', lacks: ['; Secure'] } })).toBeUndefined();
  });

  it('asks for an echo answer when the backend is judged', () => {
    const { seen: _none, ...rest } = answer();
    expect(judge(rest, { service: 'echo' })).toMatch(/expected an echo answer/);
    expect(judge(rest, { status: 200 })).toBeUndefined();
  });

  it('reads cookies and counts pods and statuses', () => {
    const a = answer();
    expect(cookieValue(cookieLine(a, 'SERVERID')!)).toBe('abc');
    expect(cookieLine(a, 'SERVER')).toBeUndefined();
    const b = answer({ status: 503, seen: seen({ pod: 'echo-2' }) });
    const { seen: _none, ...c } = answer();
    expect(Object.fromEntries(podCounts([a, b, a, c]))).toEqual({
      'echo-1': 2,
      'echo-2': 1,
      '?': 1,
    });
    expect(Object.fromEntries(statusCounts([a, b, b]))).toEqual({ 200: 1, 503: 2 });
  });
});
