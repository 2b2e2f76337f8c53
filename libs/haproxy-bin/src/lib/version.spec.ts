import { describe, expect, it } from 'vitest';
import { isAtLeast, parseHaproxyVersion } from './version.js';

describe('parseHaproxyVersion', () => {
  it('reads Debian 2.6 and 3.0 version lines', () => {
    const v26 = parseHaproxyVersion(
      'HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/\nStatus: long-term supported branch\n',
    );
    expect(v26).toEqual({ major: 2, minor: 6, patch: 12, branch: '2.6', text: '2.6.12-1+deb12u4' });
    const v30 = parseHaproxyVersion(
      'HAProxy version 3.0.11-1+deb13u4 2026/10/15 - https://haproxy.org/\n',
    );
    expect(v30).toEqual({ major: 3, minor: 0, patch: 11, branch: '3.0', text: '3.0.11-1+deb13u4' });
  });

  it('reads development versions and the old HA-Proxy spelling', () => {
    expect(parseHaproxyVersion('HAProxy version 3.5-dev2-abcdef 2026/01/01')).toMatchObject({
      major: 3,
      minor: 5,
      patch: 0,
      text: '3.5-dev2-abcdef',
    });
    expect(parseHaproxyVersion('HA-Proxy version 1.8.19 2019/02/11')?.branch).toBe('1.8');
  });

  it('returns undefined for output without a version line', () => {
    expect(parseHaproxyVersion('haproxy: not found')).toBeUndefined();
    expect(parseHaproxyVersion('')).toBeUndefined();
  });

  it('compares branches', () => {
    const v = parseHaproxyVersion('HAProxy version 2.6.12')!;
    expect(isAtLeast(v, 2, 6)).toBe(true);
    expect(isAtLeast(v, 2, 7)).toBe(false);
    expect(isAtLeast(parseHaproxyVersion('HAProxy version 3.0.1')!, 2, 7)).toBe(true);
  });
});
