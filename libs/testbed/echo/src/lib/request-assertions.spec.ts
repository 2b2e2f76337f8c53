import { describe, expect, it } from 'vitest';
import {
  buildRequestAssertions,
  canonicalHeaderName,
  echoSetHeaders,
  groupHeaders,
  parseGoDuration,
} from './request-assertions.js';

const context = { namespace: 'ns', ingress: '', service: 'svc', pod: 'pod-1' };

describe('request assertions', () => {
  it('canonicalises header names the way Go does', () => {
    expect(canonicalHeaderName('x-forwarded-for')).toBe('X-Forwarded-For');
    expect(canonicalHeaderName('USER-AGENT')).toBe('User-Agent');
    expect(canonicalHeaderName('bad header')).toBe('bad header');
  });

  it('groups repeated headers and leaves out Host and pseudo-headers', () => {
    expect(
      groupHeaders(['Host', 'a', ':path', '/', 'x-a', '1', 'X-A', '2', 'accept', '*/*']),
    ).toEqual({
      'X-A': ['1', '2'],
      Accept: ['*/*'],
    });
  });

  it('builds the upstream shape, with tls only when the request used TLS', () => {
    const plain = buildRequestAssertions(
      { uri: '/p?q=1', host: 'h', method: 'GET', httpVersion: '1.1', rawHeaders: ['a', 'b'] },
      context,
    );
    expect(Object.keys(plain)).toEqual([
      'path',
      'host',
      'method',
      'proto',
      'headers',
      'namespace',
      'ingress',
      'service',
      'pod',
      'sni',
      'remoteAddress',
    ]);
    expect(plain).toMatchObject({ path: '/p?q=1', proto: 'HTTP/1.1', pod: 'pod-1', sni: '' });
    const tls = {
      version: 'TLSv1.3',
      serverName: 'example.com',
      cipherSuite: 'TLS_AES_128_GCM_SHA256',
    };
    const secure = buildRequestAssertions(
      { uri: '/', host: 'h', method: 'POST', httpVersion: '2.0', rawHeaders: [], tls },
      context,
    );
    expect(secure).toMatchObject({ proto: 'HTTP/2.0', tls, sni: 'example.com' });
  });

  it('parses X-Echo-Set-Header lists', () => {
    expect([...echoSetHeaders(['X-A: 1, X-B: two', 'X-A: 3'])]).toEqual([
      ['X-A', '1,3'],
      ['X-B', 'two'],
    ]);
  });

  it('parses Go durations', () => {
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1.5s')).toBe(1500);
    expect(parseGoDuration('10')).toBeUndefined();
    expect(parseGoDuration('5x')).toBeUndefined();
  });
});
