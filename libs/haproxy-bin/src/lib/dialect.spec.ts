import { describe, expect, it } from 'vitest';
import { haproxyDialect } from './dialect.js';
import { parseHaproxyVersion } from './version.js';

const dialectOf = (line: string): ReturnType<typeof haproxyDialect> =>
  haproxyDialect(parseHaproxyVersion(line)!);

describe('haproxyDialect', () => {
  it('gives 2.6 the silent reload and blank-line payloads only', () => {
    expect(dialectOf('HAProxy version 2.6.12-1+deb12u4')).toEqual({
      reload: 'silent',
      customPayloadTerminator: false,
      runsEveryLine: true,
      waitSrvRemovable: false,
    });
  });

  it('gives 2.7+ the synchronous reload and 3.0+ custom terminators', () => {
    expect(dialectOf('HAProxy version 2.8.5').reload).toBe('synchronous');
    expect(dialectOf('HAProxy version 2.8.5').customPayloadTerminator).toBe(false);
    expect(dialectOf('HAProxy version 3.0.11-1+deb13u4')).toEqual({
      reload: 'synchronous',
      customPayloadTerminator: true,
      runsEveryLine: false,
      waitSrvRemovable: true,
    });
  });
});
