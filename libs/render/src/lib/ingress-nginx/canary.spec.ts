import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { ingressObject } from '#testbed/testing';
import { RejectedObjectsError } from '../provenance.js';
import type { RenderNotice } from '../types.js';
import { ingressNginxProvider, type NginxModel } from './provider.js';
import { canaryLines, readCanary } from './canary.js';

const P = 'nginx.ingress.kubernetes.io/';

const ing = (
  name: string,
  host: string,
  service: string,
  annotations: Record<string, string> = {},
  at = '2024-01-01T00:00:00Z',
) =>
  ingressObject({
    name,
    host,
    service,
    cls: 'nginx',
    creationTimestamp: at,
    annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [P + k, v])),
  });

function provide(
  ingresses: object[],
  notices: RenderNotice[] = [],
  incremental = false,
): NginxModel {
  const snapshot = snapshotOf(
    { ingresses: ['metadata.namespace', 'metadata.name'], ingressclasses: ['metadata.name'] },
    {
      ingresses,
      ingressclasses: [
        { metadata: { name: 'nginx' }, spec: { controller: 'k8s.io/ingress-nginx' } },
      ],
    },
  );
  return ingressNginxProvider.provide(snapshot, {
    extra: { controller_name: 'k8s.io/ingress-nginx' },
    watched: ['ingresses', 'ingressclasses'],
    incremental,
    notice: (n) => notices.push(n),
  }) as NginxModel;
}

function refusals(ingresses: object[]): string[] {
  try {
    provide(ingresses);
  } catch (err) {
    if (err instanceof RejectedObjectsError) return err.problems.map((p) => p.message);
    throw err;
  }
  return [];
}

const later = '2024-02-01T00:00:00Z';

describe('ingress-nginx canaries', () => {
  it('accepts a canary sharing host and path with its mainline, routing the pair to a split', () => {
    const m = provide([
      ing('main', 'c.example.com', 'web'),
      ing('beta', 'c.example.com', 'web-v2', { canary: 'true', 'canary-weight': '30' }, later),
    ]);
    expect(m.served).toHaveLength(1);
    const split = 'cy_apps_web_80_canary_apps_beta_web-v2_80';
    expect(m.prefix_routes.map((r) => `${r.key} ${r.backend}`)).toEqual([
      `c.example.com/ ${split}`,
    ]);
    expect(m.canaries).toEqual([
      {
        name: split,
        main: 'svc_apps_web_80',
        canary: 'ing_apps_web_80_canary_apps_beta_web-v2_80',
        rules: expect.objectContaining({ weight: 30, total: 100 }) as unknown,
      },
    ]);
    expect(m.backends.map((b) => `${b.name} ${b.service}`)).toEqual([
      'ing_apps_web_80_canary_apps_beta_web-v2_80 web-v2',
      'svc_apps_web_80 web',
    ]);
  });

  it('pairs a canary added to, then removed from, a served mainline (incremental renders)', () => {
    const main = ing('main', 'i.example.com', 'web');
    const beta = ing('beta', 'i.example.com', 'web-v2', { canary: 'true' }, later);
    const other = ing('other', 'o.example.com', 'web');
    const routes = (m: NginxModel) => m.prefix_routes.map((r) => `${r.key} ${r.backend}`);
    expect(routes(provide([main, other], [], true))).toEqual([
      'i.example.com/ svc_apps_web_80',
      'o.example.com/ svc_apps_web_80',
    ]);
    const paired = provide([main, other, beta], [], true);
    expect(routes(paired)).toEqual([
      'i.example.com/ cy_apps_web_80_canary_apps_beta_web-v2_80',
      'o.example.com/ svc_apps_web_80',
    ]);
    expect(paired.canaries).toHaveLength(1);
    const unpaired = provide([main, other], [], true);
    expect(routes(unpaired)).toEqual([
      'i.example.com/ svc_apps_web_80',
      'o.example.com/ svc_apps_web_80',
    ]);
    expect(unpaired.canaries).toEqual([]);
  });

  it('still refuses two mainlines for one host and path (the older wins)', () => {
    expect(
      refusals([
        ing('main', 'c.example.com', 'web'),
        ing('other', 'c.example.com', 'web-v2', { canary: 'false' }, later),
      ]),
    ).toEqual([
      expect.stringMatching(
        /^Ingress apps\/other: host c.example.com path \/ .*already served by the older Ingress apps\/main/,
      ),
    ]);
  });

  it('ignores a canary without a mainline, with a notice naming it', () => {
    const notices: RenderNotice[] = [];
    const m = provide([ing('beta', 'lone.example.com', 'web-v2', { canary: 'true' })], notices);
    expect(m.prefix_routes).toEqual([]);
    expect(m.canaries).toEqual([]);
    expect(notices.map((n) => n.message)).toEqual([
      'Ingress apps/beta: canary of no Ingress: no served Ingress has its host and path (lone.example.com/); ignored, as ingress-nginx ignores it',
    ]);
  });

  it('refuses bad canary values naming the annotation (and leaves the mainline served)', () => {
    expect(
      refusals([
        ing('main', 'c.example.com', 'web'),
        ing('b1', 'c.example.com', 'v2', { canary: 'yes' }, later),
      ]),
    ).toEqual([
      'Ingress apps/b1: annotation nginx.ingress.kubernetes.io/canary: "yes" is not true or false',
    ]);
    const bad = (a: Record<string, string>) =>
      refusals([
        ing('main', 'c.example.com', 'web'),
        ing('b', 'c.example.com', 'v2', { canary: 'true', ...a }, later),
      ]);
    expect(bad({ 'canary-by-header': 'X-Canary', 'canary-by-header-pattern': "a'b" })).toEqual([
      `Ingress apps/b: annotation ${P}canary-by-header-pattern: "a'b" is not printable text without a single quote`,
    ]);
    expect(bad({ 'canary-by-header': 'X-Canary', 'canary-by-header-pattern': 'a(b' })).toEqual([
      `Ingress apps/b: annotation ${P}canary-by-header-pattern: "a(b" is not a regular expression`,
    ]);
    expect(bad({ 'canary-by-header': 'X Canary' })).toEqual([
      `Ingress apps/b: annotation ${P}canary-by-header: "X Canary" is not a header name`,
    ]);
    expect(bad({ 'canary-weight': '-1' })).toEqual([
      `Ingress apps/b: annotation ${P}canary-weight: "-1" is not a whole number from 0 to 1000000000`,
    ]);
  });

  it('refuses a second canary of one location', () => {
    expect(
      refusals([
        ing('main', 'c.example.com', 'web'),
        ing('b1', 'c.example.com', 'v2', { canary: 'true' }, later),
        ing('b2', 'c.example.com', 'v3', { canary: 'true' }, '2024-03-01T00:00:00Z'),
      ]),
    ).toEqual([
      expect.stringMatching(/^Ingress apps\/b2: .*already served by the older Ingress apps\/b1/),
    ]);
  });
});

describe('canary lines', () => {
  const rules = (a: Record<string, string>) =>
    readCanary(ing('b', 'c.example.com', 'v2', { canary: 'true', ...a }));
  const split = (a: Record<string, string>, affinity?: string) =>
    canaryLines({ name: 'cy_s', main: 'ing_m', canary: 'ing_c', rules: rules(a), affinity });
  const at = '{ var(txn.route) -m str cy_s }';
  const open = `${at} !{ var(txn.canary) -m found }`;
  const tail = [
    `http-request set-var(txn.route) str(ing_c) if ${at} { var(txn.canary) -m str y }`,
    `http-request set-var(txn.route) str(ing_m) if ${at}`,
  ];

  it('decides by header, then cookie, then weight (rand below the weight)', () => {
    expect(
      split({ 'canary-by-header': 'X-Canary', 'canary-by-cookie': 'beta', 'canary-weight': '40' }),
    ).toEqual([
      `http-request set-var(txn.canary) str(y) if ${open} { req.fhdr(X-Canary,1) -m str always }`,
      `http-request set-var(txn.canary) str(n) if ${open} { req.fhdr(X-Canary,1) -m str never }`,
      `http-request set-var(txn.canary) str(y) if ${open} { req.cook(beta) -m str always }`,
      `http-request set-var(txn.canary) str(n) if ${open} { req.cook(beta) -m str never }`,
      `http-request set-var(txn.canary) str(y) if ${open} { rand(100) lt 40 }`,
      ...tail,
    ]);
  });

  it('matches a header value exactly, a pattern as a quoted regex, after `--`', () => {
    expect(split({ 'canary-by-header': 'X-C', 'canary-by-header-value': '-i yes #x' })[0]).toBe(
      `http-request set-var(txn.canary) str(y) if ${open} { req.fhdr(X-C,1) -m str -- '-i yes #x' }`,
    );
    expect(split({ 'canary-by-header': 'X-C', 'canary-by-header-pattern': '^(a|b) c$' })[0]).toBe(
      `http-request set-var(txn.canary) str(y) if ${open} { req.fhdr(X-C,1) -m reg -- '^(a|b) c$' }`,
    );
  });

  it('takes weight 0 as never, a weight of the total as always, totals below 100 as 100', () => {
    expect(split({ 'canary-weight': '0' })).toEqual(tail);
    expect(split({ 'canary-weight': '500', 'canary-weight-total': '500' })).toEqual([
      `http-request set-var(txn.canary) str(y) if ${open}`,
      ...tail,
    ]);
    expect(split({ 'canary-weight': '5', 'canary-weight-total': '10' })).toContain(
      `http-request set-var(txn.canary) str(y) if ${open} { rand(100) lt 5 }`,
    );
  });

  it("with the mainline's affinity: its cookie keeps a client on the mainline, the canary's on the canary (sticky), before every rule", () => {
    const affinity = [
      `http-request set-var(txn.canary) str(n) if ${at} { req.cook(route) -m reg ^srv[0-9]+$ }`,
      `http-request set-var(txn.canary) str(y) if ${open} { req.cook(route) -m beg canary- }`,
    ];
    expect(split({ 'canary-by-header': 'X-C', 'canary-weight': '10' }, 'route')).toEqual([
      ...affinity,
      `http-request set-var(txn.canary) str(y) if ${open} { req.fhdr(X-C,1) -m str always }`,
      `http-request set-var(txn.canary) str(n) if ${open} { req.fhdr(X-C,1) -m str never }`,
      `http-request set-var(txn.canary) str(y) if ${open} { rand(100) lt 10 }`,
      ...tail,
    ]);
    // legacy: the canary has no affinity, only the mainline's cookie is read
    expect(split({ 'affinity-canary-behavior': 'legacy' }, 'route')).toEqual([
      affinity[0],
      ...tail,
    ]);
    expect(() => split({ 'affinity-canary-behavior': 'always' })).toThrow(
      /affinity-canary-behavior: "always" is not sticky or legacy/,
    );
  });
});
