import { describe, expect, it } from 'vitest';
import * as check from './checks.js';

// Self-tests: each step's check fails when the response is wrong, and passes when it is right.
const echo = (
  body: object,
  status = 200,
  headers: Record<string, string> = {},
): check.Observed => ({
  status,
  httpVersion: '1.1',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('conformance checks fail when they should', () => {
  it('a response from the wrong backend', () => {
    const r = echo({ service: 'foo-prefix' });
    expect(() => check.expectServedBy(r, 'foo-exact')).toThrow(
      'expected the "foo-exact" service to serve the request, got "foo-prefix"',
    );
    expect(() => check.expectServedBy(r, 'foo-prefix')).not.toThrow();
    expect(() => check.expectServedBy({ ...r, body: '<html>404</html>' }, 'foo-prefix')).toThrow(
      /not an echo backend's answer/,
    );
  });

  it('a wrong status', () => {
    expect(() => check.expectStatus(echo({}, 404), 200)).toThrow('expected status 200, got 404');
    expect(() => check.expectStatus(echo({}, 200), 404)).toThrow('expected status 404, got 200');
    expect(() => check.expectStatus(echo({}, 404), 404)).not.toThrow();
  });

  it('a missing header (response and request side)', () => {
    const r = echo({ headers: { Accept: ['*/*'] } }, 200, { date: 'Tue' });
    expect(() => check.expectResponseHeader(r, 'Server', '*')).toThrow(
      'expected the response header Server matching "*", got none',
    );
    expect(() => check.expectResponseHeader(r, 'Date', '*')).not.toThrow();
    expect(() => check.expectRequestHeader(r, 'User-Agent', 'Go-http-client/1.1')).toThrow(
      /request header User-Agent .* it saw none/,
    );
    const ua = echo({ headers: { 'User-Agent': ['curl/8'] } });
    expect(() => check.expectRequestHeader(ua, 'User-Agent', 'Go-http-client/1.1')).toThrow(
      /it saw "curl\/8"/,
    );
  });

  it('9 instead of 10 distinct pods', () => {
    const pods = new Map(Array.from({ length: 10 }, (_, i) => [`pod-${i}`, `127.0.50.${i + 1}`]));
    const replies = (n: number) =>
      Array.from({ length: 100 }, (_, i) => echo({ pod: `pod-${i % n}` }));
    expect(() => check.expectDistinctPods(replies(9), 10, pods)).toThrow(
      /expected responses from 10 different pods, got 9/,
    );
    expect(() => check.expectDistinctPods(replies(10), 10, pods)).not.toThrow();
    const stranger = [...replies(10), echo({ pod: 'elsewhere' })];
    expect(() => check.expectDistinctPods(stranger, 10, pods)).toThrow(/not a pod of the backend/);
    const one503 = [...replies(10).slice(1), echo({}, 503)];
    expect(() => check.expectDistinctPods(one503, 10, pods)).toThrow(
      /1 of 100 responses were not 200/,
    );
  });

  it('a request field or a certificate that does not match', () => {
    const r = echo({ host: 'bar.foo.com', path: '/foo', method: 'GET', proto: 'HTTP/1.1' });
    expect(() => check.expectEcho(r, 'host', 'foo.bar.com')).toThrow(/host "foo.bar.com"/);
    expect(() => check.expectEcho(r, 'path', '/foo/')).toThrow(/path/);
    expect(() => check.expectEcho(r, 'method', 'GET')).not.toThrow();
    expect(() => check.expectResponseProto({ ...r, httpVersion: '2.0' }, 'HTTP/1.1')).toThrow(
      'expected the response proto HTTP/1.1, got HTTP/2.0',
    );
    expect(() => check.expectCertificateFor('DNS:other.com', 'foo.bar.com')).toThrow(/other.com/);
    expect(() => check.expectCertificateFor('DNS:foo.bar.com', 'foo.bar.com')).not.toThrow();
  });

  it('an address that appears in the status after 1 s fails the "no address" step', async () => {
    const start = Date.now();
    let reads = 0;
    const late = () => {
      reads += 1;
      return Promise.resolve(Date.now() - start >= 1_000 ? ['127.0.0.1'] : []);
    };
    expect(check.STATUS_ADDRESS_GRACE_MS).toBeGreaterThan(1_000);
    await expect(check.expectNoAddressFor(late, 1_500, 50)).rejects.toThrow(
      /the Ingress status names 127\.0\.0\.1 \(watched for 1500 ms\)/,
    );
    // a one-shot read at the start (the old step) saw nothing: the poll is what catches it
    expect(reads).toBeGreaterThan(1);
  });

  it('a status that stays empty through the grace period passes the "no address" step', async () => {
    const start = Date.now();
    await check.expectNoAddressFor(() => Promise.resolve([]), 300, 50);
    expect(Date.now() - start).toBeGreaterThanOrEqual(300);
  });
});
