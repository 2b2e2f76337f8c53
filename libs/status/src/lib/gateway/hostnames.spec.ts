import { describe, expect, it } from 'vitest';
import { poolAddresses } from './addresses.js';
import { effectiveHostnames, hostnameRank, intersect } from './hostnames.js';

describe('hostname intersection', () => {
  it.each([
    [undefined, 'a.com', 'a.com'],
    ['a.com', 'a.com', 'a.com'],
    ['a.com', 'b.com', undefined],
    ['*.a.com', 'x.a.com', 'x.a.com'],
    ['*.a.com', 'x.y.a.com', 'x.y.a.com'],
    ['*.a.com', 'a.com', undefined],
    ['x.a.com', '*.a.com', 'x.a.com'],
    ['a.com', '*.a.com', undefined],
    ['*.a.com', '*.a.com', '*.a.com'],
    ['*.a.com', '*.x.a.com', '*.x.a.com'],
    ['*.x.a.com', '*.a.com', '*.x.a.com'],
    ['*.a.com', '*.b.com', undefined],
    ['Very.Specific.com', 'very.specific.COM', 'very.specific.com'],
  ])('listener %s ∩ route %s = %s', (l, r, want) => {
    expect(intersect(l, r)).toBe(want);
  });

  it('serves the listener hostname, or any host, for a route without hostnames', () => {
    expect(effectiveHostnames('*.a.com', [])).toEqual(['*.a.com']);
    expect(effectiveHostnames(undefined, [])).toEqual(['*']);
    expect(effectiveHostnames('a.com', ['b.com', '*.com'])).toEqual(['a.com']);
  });

  it('ranks exact before wildcard (longer first) before any', () => {
    const hosts = ['*', '*.a.com', 'x.a.com', '*.x.a.com'];
    const sorted = [...hosts].sort((a, b) => {
      const [ra, la] = hostnameRank(a);
      const [rb, lb] = hostnameRank(b);
      return ra - rb || la - lb;
    });
    expect(sorted).toEqual(['x.a.com', '*.x.a.com', '*.a.com', '*']);
  });
});

describe('poolAddresses', () => {
  it('gives each Gateway its own stable address inside the pool', () => {
    const keys = Array.from({ length: 50 }, (_, i) => `ns/gw-${i}`);
    const a = poolAddresses('127.80.0.0/16', keys);
    expect(new Set(a.values()).size).toBe(50);
    for (const ip of a.values()) expect(ip).toMatch(/^127\.80\.\d+\.\d+$/);
    const b = poolAddresses('127.80.0.0/16', keys.slice(1));
    expect(b.get('ns/gw-7')).toBe(a.get('ns/gw-7'));
  });

  it('refuses a malformed or too small pool', () => {
    expect(() => poolAddresses('127.80.0.0', ['a'])).toThrow(/not an IPv4 CIDR/);
    expect(() => poolAddresses('127.80.0.0/30', ['a', 'b', 'c'])).toThrow(/2 addresses for 3/);
  });
});
