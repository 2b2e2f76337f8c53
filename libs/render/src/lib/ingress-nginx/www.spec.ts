import { describe, expect, it } from 'vitest';
import type { ReadIngress } from '../ingress/model.js';
import { wwwRedirects } from './www.js';

const read = (hosts: readonly string[], on: string | undefined): ReadIngress =>
  ({
    ing: {
      metadata: {
        annotations:
          on === undefined ? {} : { 'nginx.ingress.kubernetes.io/from-to-www-redirect': on },
      },
    },
    claims: hosts.map((host) => ({ host })),
  }) as unknown as ReadIngress;

describe('wwwRedirects (from-to-www-redirect)', () => {
  it('redirects www.<host> to <host> and <host> to a www host, in name order', () => {
    expect(wwwRedirects([read(['foo.com', 'www.bar.com', 'foo.com'], 'true')])).toEqual([
      { from: 'bar.com', to: 'www.bar.com' },
      { from: 'www.foo.com', to: 'foo.com' },
    ]);
  });

  it('makes none for a name a served Ingress claims, a wildcard or catch-all host, or when off', () => {
    expect(
      wwwRedirects([read(['a.com', '*.b.com', '*'], 'true'), read(['www.a.com'], undefined)]),
    ).toEqual([]);
    expect(wwwRedirects([read(['c.com'], 'false'), read(['d.com'], 'yes')])).toEqual([]);
  });
});
