// Canary Ingresses (ingress-nginx's annotations guide, "Canary", and its e2e canary tests): the
// mainline Ingress routes to echo, the canary Ingress (same host and path) to echo-b; which
// Service answered is what each step judges.
import { get, host, ingress, type CaseTools, type NginxCase, type Step } from './cases.js';
import type { Req } from './http.js';
import { showCounts } from './judge.js';

const byHeader = host('canary-header');
const byValue = host('canary-header-value');
const byPattern = host('canary-header-pattern');
const byCookie = host('canary-cookie');
const order = host('canary-precedence');
const none = host('canary-weight-zero');
const all = host('canary-weight-all');
const half = host('canary-weight-half');
const lone = host('canary-lone');
const loneMarker = host('canary-lone-marker');
const sticky = host('canary-sticky');
const legacy = host('canary-legacy');

/** A mainline with cookie affinity (`route`) and its canary (echo-b) with `canary`. */
const affinityPair = (slug: string, h: string, canary: Readonly<Record<string, string>>) => [
  ingress(`${slug}-main`, h, [['/']], { affinity: 'cookie', 'session-cookie-name': 'route' }),
  ingress(`${slug}-canary`, h, [['/', 'echo-b']], { canary: 'true', ...canary }),
];
const withCookie = (h: string, cookie: string): Req => get(h, '/', { headers: { Cookie: cookie } });

/** The mainline (echo) and its canary (echo-b) for one host. */
const pair = (slug: string, h: string, canary: Readonly<Record<string, string>>) => [
  ingress(`${slug}-main`, h, [['/']]),
  ingress(`${slug}-canary`, h, [['/', 'echo-b']], { canary: 'true', ...canary }),
];

const to = (service: string) => ({ status: 200, service });
const withHeaders = (h: string, headers: Record<string, string>): Req => get(h, '/', { headers });
const step = (req: Req, service: string): Step => ({ req, expect: to(service) });

/** How many of `n` requests through each HAProxy pod the canary (echo-b) answered: within [lo, hi]. */
function canaryShare(h: string, n: number, lo: number, hi: number) {
  return async (t: CaseTools): Promise<string | undefined> => {
    for (const pod of t.pods) {
      const counts = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const a = await t.call(pod, get(h, `/${i}`));
        const who = a.status === 200 && a.seen ? a.seen.service : `status ${a.status}`;
        counts.set(who, (counts.get(who) ?? 0) + 1);
      }
      const canary = counts.get('echo-b') ?? 0;
      const main = counts.get('echo') ?? 0;
      if (canary + main !== n || canary < lo || canary > hi)
        return `${n} requests through ${pod.address}: ${showCounts(counts)}; expected echo-b ${lo}–${hi} times, echo the rest`;
    }
    return undefined;
  };
}

/** canary, canary-by-header(-value, -pattern), canary-by-cookie, canary-weight(-total). */
export const CANARY_CASES: readonly NginxCase[] = [
  {
    name: 'canary-by-header: always goes to the canary, never and other values to the mainline',
    annotations: ['canary', 'canary-by-header'],
    objects: pair('canary-header', byHeader, { 'canary-by-header': 'X-Canary' }),
    steps: [
      step(withHeaders(byHeader, { 'X-Canary': 'always' }), 'echo-b'),
      step(withHeaders(byHeader, { 'X-Canary': 'never' }), 'echo'),
      step(withHeaders(byHeader, { 'X-Canary': 'sometimes' }), 'echo'),
      step(get(byHeader, '/'), 'echo'),
    ],
  },
  {
    name: 'canary-by-header-value: the exact value goes to the canary, always and others to the mainline',
    annotations: ['canary', 'canary-by-header', 'canary-by-header-value'],
    objects: pair('canary-header-value', byValue, {
      'canary-by-header': 'X-Canary',
      'canary-by-header-value': 'v2 beta',
    }),
    steps: [
      step(withHeaders(byValue, { 'X-Canary': 'v2 beta' }), 'echo-b'),
      step(withHeaders(byValue, { 'X-Canary': 'always' }), 'echo'),
      step(withHeaders(byValue, { 'X-Canary': 'v2 beta2' }), 'echo'),
      step(get(byValue, '/'), 'echo'),
    ],
  },
  {
    name: 'canary-by-header-pattern: a matching value goes to the canary, others to the mainline',
    annotations: ['canary', 'canary-by-header', 'canary-by-header-pattern'],
    objects: pair('canary-header-pattern', byPattern, {
      'canary-by-header': 'X-Canary',
      'canary-by-header-pattern': '^(beta|v[0-9]+)$',
    }),
    steps: [
      step(withHeaders(byPattern, { 'X-Canary': 'v42' }), 'echo-b'),
      step(withHeaders(byPattern, { 'X-Canary': 'beta' }), 'echo-b'),
      step(withHeaders(byPattern, { 'X-Canary': 'xv42' }), 'echo'),
      step(withHeaders(byPattern, { 'X-Canary': 'always' }), 'echo'),
      step(get(byPattern, '/'), 'echo'),
    ],
  },
  {
    name: 'canary-by-cookie: always goes to the canary, never and other values to the mainline',
    annotations: ['canary', 'canary-by-cookie'],
    objects: pair('canary-cookie', byCookie, { 'canary-by-cookie': 'beta' }),
    steps: [
      step(withHeaders(byCookie, { Cookie: 'a=1; beta=always' }), 'echo-b'),
      step(withHeaders(byCookie, { Cookie: 'beta=never' }), 'echo'),
      step(withHeaders(byCookie, { Cookie: 'beta=maybe' }), 'echo'),
      step(withHeaders(byCookie, { Cookie: 'notbeta=always' }), 'echo'),
      step(get(byCookie, '/'), 'echo'),
    ],
  },
  {
    name: 'canary precedence: header before cookie before weight, never stops at its rule',
    annotations: ['canary', 'canary-by-header', 'canary-by-cookie', 'canary-weight'],
    objects: pair('canary-precedence', order, {
      'canary-by-header': 'X-Canary',
      'canary-by-cookie': 'beta',
      'canary-weight': '100',
    }),
    steps: [
      step(get(order, '/'), 'echo-b'),
      step(withHeaders(order, { 'X-Canary': 'never', Cookie: 'beta=always' }), 'echo'),
      step(withHeaders(order, { 'X-Canary': 'always', Cookie: 'beta=never' }), 'echo-b'),
      step(withHeaders(order, { Cookie: 'beta=never' }), 'echo'),
      step(withHeaders(order, { 'X-Canary': 'other', Cookie: 'beta=never' }), 'echo'),
      step(withHeaders(order, { 'X-Canary': 'other', Cookie: 'beta=other' }), 'echo-b'),
    ],
  },
  {
    name: "affinity-canary-behavior: sticky keeps a client the canary's cookie names on the canary (even at weight 0), legacy does not; the mainline's cookie keeps its clients on the mainline",
    annotations: ['canary', 'canary-weight', 'affinity', 'affinity-canary-behavior'],
    objects: [
      ...affinityPair('canary-sticky', sticky, {
        'canary-by-header': 'X-Ready',
        'canary-weight': '0',
      }),
      ...affinityPair('canary-legacy', legacy, {
        'canary-by-header': 'X-Ready',
        'canary-weight': '0',
        'affinity-canary-behavior': 'legacy',
      }),
    ],
    steps: [
      // the legacy pair applied last: once it is served, so is the sticky one
      step(withHeaders(legacy, { 'X-Ready': 'always' }), 'echo-b'),
      step(withHeaders(sticky, { 'X-Ready': 'always' }), 'echo-b'),
      // the canary's one pod is its first server: its cookie value is canary-srv1
      step(withCookie(sticky, 'route=canary-srv1'), 'echo-b'),
      step(withCookie(legacy, 'route=canary-srv1'), 'echo'),
      // a client of the mainline stays there even when the header asks for the canary
      step(get(sticky, '/', { headers: { 'X-Ready': 'always', Cookie: 'route=srv1' } }), 'echo'),
    ],
  },
  {
    name: 'canary-weight: 0 sends no request to the canary',
    annotations: ['canary', 'canary-weight'],
    // the header rule only marks the pair as served
    objects: pair('canary-weight-zero', none, {
      'canary-by-header': 'X-Ready',
      'canary-weight': '0',
    }),
    steps: [step(withHeaders(none, { 'X-Ready': 'always' }), 'echo-b')],
    script: canaryShare(none, 30, 0, 0),
  },
  {
    name: 'canary-weight: 100 sends every request to the canary',
    annotations: ['canary', 'canary-weight'],
    objects: pair('canary-weight-all', all, { 'canary-weight': '100' }),
    steps: [step(get(all, '/'), 'echo-b')],
    script: canaryShare(all, 30, 30, 30),
  },
  {
    // 200 requests at p = 0.5: outside 60–140 is more than 5.6 standard deviations away
    name: 'canary-weight-total: weight 100 of 200 sends about half the requests to the canary',
    annotations: ['canary', 'canary-weight', 'canary-weight-total'],
    objects: pair('canary-weight-half', half, {
      'canary-by-header': 'X-Ready',
      'canary-weight': '100',
      'canary-weight-total': '200',
    }),
    steps: [step(withHeaders(half, { 'X-Ready': 'always' }), 'echo-b')],
    script: canaryShare(half, 200, 60, 140),
  },
  {
    name: 'canary: a canary without a mainline is ignored (its host is not served)',
    annotations: ['canary'],
    objects: [
      ingress('canary-lone', lone, [['/', 'echo-b']], { canary: 'true', 'canary-weight': '100' }),
      ingress('canary-lone-marker', loneMarker, [['/']]),
    ],
    steps: [step(get(loneMarker, '/'), 'echo'), { req: get(lone, '/'), expect: { status: 404 } }],
  },
];
