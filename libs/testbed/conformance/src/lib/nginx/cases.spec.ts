import { describe, expect, it } from 'vitest';
import { NGINX_ANNOTATIONS } from '#render';
import { NGINX_CASES } from './runner.js';

const hostsOf = (c: (typeof NGINX_CASES)[number]) =>
  c.objects.flatMap(
    (o) => (o as { spec?: { rules?: { host?: string }[] } }).spec?.rules?.map((r) => r.host) ?? [],
  );

describe('the ingress-nginx suite cases', () => {
  it('have unique names, a readiness step each, and hosts no other case uses', () => {
    const names = NGINX_CASES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of NGINX_CASES) expect(c.steps.length, c.name).toBeGreaterThan(0);
    const owner = new Map<string, string>();
    for (const c of NGINX_CASES)
      for (const h of new Set(hostsOf(c))) {
        expect(owner.get(h ?? ''), `${h} of ${c.name}`).toBeUndefined();
        owner.set(h ?? '', c.name);
      }
  });

  it('cover every annotation the library honours, with or without a deviation, and the core routing cases', () => {
    const covered = new Set(NGINX_CASES.flatMap((c) => c.annotations));
    const served = NGINX_ANNOTATIONS.filter(
      (a) => a.status === 'honoured' || a.status === 'deviation',
    ).map((a) => a.name);
    expect(served.length).toBeGreaterThan(80);
    expect(served.filter((a) => !covered.has(a))).toEqual([]);
    expect(NGINX_CASES.filter((c) => c.core).length).toBeGreaterThanOrEqual(4);
  });
});
