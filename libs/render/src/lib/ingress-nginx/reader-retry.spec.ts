import { describe, expect, it } from 'vitest';
import { NginxReader, NginxRefusal, defaultNginxSettings } from './reader.js';
import { retryLines } from './reader-retry.js';

const P = 'nginx.ingress.kubernetes.io/';
const settingsOf = (annotations: Record<string, string>) => {
  const ing = {
    metadata: {
      namespace: 'apps',
      name: 'retry',
      annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
    },
    spec: { rules: [] },
  };
  const s = defaultNginxSettings({});
  new NginxReader(ing, {}).read(s);
  return s;
};
const linesOf = (annotations: Record<string, string>, grpc = false) => {
  const s = settingsOf(annotations);
  return retryLines(s.retry, s.requestBuffering, grpc);
};
const NO_L7_FOR_UNSAFE = 'http-request disable-l7-retry if { method POST PATCH LOCK }';

describe('proxy-next-upstream and its tries', () => {
  it("defaults to ingress-nginx's `error timeout` with 3 tries, each retry on another server", () => {
    expect(linesOf({})).toEqual([
      'retry-on conn-failure empty-response response-timeout',
      'retries 2',
      'option redispatch 1',
      NO_L7_FOR_UNSAFE,
      'option http-buffer-request',
    ]);
  });

  it('maps each failure kind to its retry-on conditions, and tries to retries', () => {
    const lines = linesOf({
      'proxy-next-upstream': 'error timeout invalid_header http_500 http_502 http_503',
      'proxy-next-upstream-tries': '5',
      'proxy-next-upstream-timeout': '10',
    });
    expect(lines.slice(0, 2)).toEqual([
      'retry-on conn-failure empty-response response-timeout junk-response 500 502 503',
      'retries 4',
    ]);
    expect(linesOf({ 'proxy-next-upstream': 'http_504  http_403 http_404' })[0]).toBe(
      'retry-on 504 403 404',
    );
  });

  it('retries POST, PATCH and LOCK after sending them only with non_idempotent', () => {
    expect(linesOf({ 'proxy-next-upstream': 'error http_502' })).toContain(NO_L7_FOR_UNSAFE);
    const all = linesOf({ 'proxy-next-upstream': 'error http_502 non_idempotent' });
    expect(all).not.toContain(NO_L7_FOR_UNSAFE);
    expect(all[0]).toBe('retry-on conn-failure empty-response 502');
    // conn-failure alone never retries a request that was sent: nothing to disable
    expect(linesOf({ 'proxy-next-upstream': 'timeout' })[0]).toBe(
      'retry-on conn-failure response-timeout',
    );
  });

  it('turns every retry off with off, wherever it is listed, and with tries 1', () => {
    for (const v of ['off', 'error off', 'non_idempotent'])
      expect(linesOf({ 'proxy-next-upstream': v }).slice(0, 3), v).toEqual([
        'retry-on none',
        'retries 0',
        'option http-buffer-request',
      ]);
    expect(linesOf({ 'proxy-next-upstream-tries': '1' }).slice(0, 3)).toEqual([
      'retry-on conn-failure empty-response response-timeout',
      'retries 0',
      'option http-buffer-request',
    ]);
  });

  it('refuses a bad value naming the Ingress and the annotation', () => {
    const refusal = (a: Record<string, string>) => {
      try {
        settingsOf(a);
      } catch (e) {
        expect(e).toBeInstanceOf(NginxRefusal);
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ 'proxy-next-upstream': 'error http_418' })).toBe(
      `Ingress apps/retry: annotation ${P}proxy-next-upstream: "http_418" is not one of error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, non_idempotent, off`,
    );
    expect(refusal({ 'proxy-next-upstream': 'error http_429' })).toMatch(
      /proxy-next-upstream: http_429 is refused: HAProxy 2.6 cannot retry on a 429 answer$/,
    );
    expect(refusal({ 'proxy-next-upstream-tries': '0' })).toMatch(
      /proxy-next-upstream-tries: 0 \(no limit\) is refused/,
    );
    expect(refusal({ 'proxy-next-upstream-tries': 'three' })).toMatch(
      /proxy-next-upstream-tries: "three" is not a whole number from 1 to 100$/,
    );
    expect(refusal({ 'proxy-next-upstream-timeout': '10s' })).toMatch(
      /proxy-next-upstream-timeout: "10s" is not a whole number from 0 to 86400$/,
    );
    expect(refusal({ 'proxy-request-buffering': 'false' })).toMatch(
      /proxy-request-buffering: "false" is not on or off$/,
    );
  });
});

describe('proxy-request-buffering', () => {
  it('buffers the body unless off, and never for gRPC (as grpc_pass)', () => {
    expect(linesOf({ 'proxy-request-buffering': 'on' })).toContain('option http-buffer-request');
    expect(linesOf({ 'proxy-request-buffering': ' off ' })).not.toContain(
      'option http-buffer-request',
    );
    expect(linesOf({}, true)).not.toContain('option http-buffer-request');
  });
});
