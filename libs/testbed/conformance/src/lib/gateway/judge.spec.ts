import { describe, expect, it } from 'vitest';
import type { Reply } from '#testbed/stack';
import {
  consecutive,
  goHostnameMatches,
  goServerIdentity,
  judgeReply,
  judgeShares,
  type HttpExpectation,
} from './judge.js';
import { GATEWAY_CASES } from './cases.js';

const sent = { scheme: 'http' as const, host: 'example.com', port: 10080, path: '/p' };
const echo = (
  pod: string,
  headers: Record<string, string[]> = {},
  status = 200,
  seen: Record<string, string> = {},
): Reply => ({
  status,
  httpVersion: '1.1',
  headers: {},
  body: JSON.stringify({
    pod,
    namespace: 'gateway-conformance-infra',
    headers,
    path: '/',
    method: 'GET',
    host: 'example.com',
    ...seen,
  }),
});

describe('the Gateway API runner judges as upstream does', () => {
  it('fails a wrong backend, a wrong status, a missing or present header', () => {
    const x = { path: '/', backend: 'infra-backend-v1' };
    expect(judgeReply(x, echo('infra-backend-v1-abc'), sent)).toBeUndefined();
    expect(judgeReply(x, echo('infra-backend-v2-abc'), sent)).toMatch(/expected infra-backend-v1/);
    expect(judgeReply(x, echo('infra-backend-v1-abc', {}, 404), sent)).toMatch(/status 404/);
    const h = { ...x, seen: { 'X-Header-Add': 'a,b' }, absent: ['X-Remove'] };
    expect(
      judgeReply(h, echo('infra-backend-v1-a', { 'X-Header-Add': ['a', 'b'] }), sent),
    ).toBeUndefined();
    expect(judgeReply(h, echo('infra-backend-v1-a', { 'X-Header-Add': ['a'] }), sent)).toMatch(
      /expected a,b/,
    );
    expect(
      judgeReply(
        h,
        echo('infra-backend-v1-a', { 'X-Header-Add': ['a', 'b'], 'X-Remove': ['1'] }),
        sent,
      ),
    ).toMatch(/expected it absent/);
  });

  it("fails when the backend saw another path, method or host, or not the request's headers", () => {
    const x = { path: '/', backend: 'infra-backend-v1' };
    const v1 = 'infra-backend-v1-a';
    expect(judgeReply(x, echo(v1, {}, 200, { path: '/other' }), sent)).toMatch(/path \/other/);
    expect(judgeReply(x, echo(v1, {}, 200, { method: 'POST' }), sent)).toMatch(/method POST/);
    expect(judgeReply({ ...x, host: 'example.com' }, echo(v1), sent)).toBeUndefined();
    expect(judgeReply({ ...x, host: 'a.com' }, echo(v1), sent)).toMatch(/host example.com/);
    const h = { ...x, headers: { Version: 'one' } };
    expect(judgeReply(h, echo(v1, { Version: ['one'] }), sent)).toBeUndefined();
    expect(judgeReply(h, echo(v1), sent)).toMatch(/Version: \(none\)/);
  });

  it('fails a response header with another value, a repeat not joined, or one that must be absent', () => {
    const x = {
      path: '/',
      backend: 'infra-backend-v1',
      responseHeaders: { 'X-Header-Add': 'a,b' },
      responseAbsent: ['X-Gone'],
    };
    const r = (rawHeaders: string[]): Reply => ({ ...echo('infra-backend-v1-a'), rawHeaders });
    expect(judgeReply(x, r(['x-header-add', 'a', 'X-Header-Add', 'b']), sent)).toBeUndefined();
    expect(judgeReply(x, r(['X-Header-Add', 'a']), sent)).toMatch(/X-Header-Add: a, expected a,b/);
    expect(
      judgeReply(x, r(['X-Header-Add', 'a', 'X-Header-Add', 'b', 'x-gone', '1']), sent),
    ).toMatch(/X-Gone present/);
  });

  it('fails a redirect to the wrong port', () => {
    const x = { path: '/p', status: 302, redirect: { host: 'example.org' } };
    const r = (location: string): Reply => ({
      status: 302,
      httpVersion: '1.1',
      headers: { location },
      body: '',
    });
    expect(judgeReply(x, r('http://example.org:10080/p'), sent)).toBeUndefined();
    expect(judgeReply(x, r('http://example.org:10081/p'), sent)).toMatch(
      /port 10081, expected 10080/,
    );
    expect(judgeReply(x, r('http://example.com:10080/p'), sent)).toMatch(/host/);
  });

  it('needs three consecutive successes: two of three is a failure', async () => {
    const seq = (s: (string | undefined)[]) => {
      let i = 0;
      return () => Promise.resolve(s[i++ % s.length]);
    };
    expect(await consecutive(seq([undefined]), { deadlineMs: 1000, pauseMs: 1 })).toBeUndefined();
    expect(
      await consecutive(seq([undefined, undefined, 'wrong backend']), {
        deadlineMs: 300,
        pauseMs: 1,
      }),
    ).toMatch(/wrong backend/);
  });

  it('fails a weight share off by 6 points and passes one off by 4', () => {
    const w = { v1: 70, v2: 30, v3: 0 };
    expect(judgeShares({ v1: 370, v2: 130 }, w)).toBeUndefined(); // 74 %
    expect(judgeShares({ v1: 380, v2: 120 }, w)).toMatch(/v1: 76\.0 %/); // off by 6
    expect(judgeShares({ v1: 350, v2: 140, v3: 10 }, w)).toMatch(/weight 0 answered: v3/);
    expect(judgeShares({ v1: 350, v2: 150, x: 1 }, w)).toMatch(/unexpected/);
  });
});

describe('the runner checks TLS names as the upstream (Go) client does', () => {
  it('a wildcard covers exactly one leftmost label', () => {
    expect(goHostnameMatches('*.org', 'unknown-example.org')).toBe(true);
    expect(goHostnameMatches('*.wildcard.org', 'a.wildcard.org')).toBe(true);
    expect(goHostnameMatches('*.wildcard.org', 'a.b.wildcard.org')).toBe(false);
    expect(goHostnameMatches('*.org', 'org')).toBe(false);
    expect(goHostnameMatches('*', 'example')).toBe(false);
    expect(goHostnameMatches('Example.ORG', 'example.org.')).toBe(true);
    expect(goHostnameMatches('example.org', 'second-example.org')).toBe(false);
  });
  it('fails a certificate whose DNS names do not cover the host', () => {
    const cert = { subjectaltname: 'DNS:example.org, DNS:*.wildcard.org, IP Address:127.0.0.1' };
    expect(goServerIdentity('example.org', cert)).toBeUndefined();
    expect(goServerIdentity('x.wildcard.org', cert)).toBeUndefined();
    expect(goServerIdentity('other.org', cert)?.message).toMatch(/do not cover other.org/);
    expect(goServerIdentity('127.0.0.1', cert)).toBeInstanceOf(Error);
  });
});

describe('HTTPRouteRequestHeaderModifier sends and expects the pass-through header, as upstream', () => {
  const c = GATEWAY_CASES.find((k) => k.name === 'HTTPRouteRequestHeaderModifier');
  const setOrAdd = (c?.requests ?? []).filter((x) => x.path === '/set' || x.path === '/add');
  // the backend's view: what the expectation says it must see, as the echo lists it
  const answer = (x: HttpExpectation, drop?: string): Reply => ({
    status: 200,
    httpVersion: '1.1',
    headers: {},
    body: JSON.stringify({
      pod: 'infra-backend-v1-a-b',
      namespace: 'gateway-conformance-infra',
      path: x.path,
      method: 'GET',
      headers: Object.fromEntries(
        Object.entries(x.seen ?? {})
          .filter(([k]) => k !== drop)
          .map(([k, v]) => [k, [v]]),
      ),
    }),
  });

  it('every /set and /add request fails when the backend did not see Some-Other-Header: val', () => {
    expect(setOrAdd).toHaveLength(4);
    for (const x of setOrAdd) {
      expect(x.headers?.['Some-Other-Header']).toBe('val');
      expect(judgeReply(x, answer(x), sent)).toBeUndefined();
      expect(judgeReply(x, answer(x, 'Some-Other-Header'), sent)).toMatch(
        /backend saw Some-Other-Header: \(none\), expected val/,
      );
    }
  });
});
