import type { CaseTools, GatewayCase } from './cases.js';
import type { HttpExpectation } from './judge.js';
import {
  generationOf,
  httpRoutePath,
  INFRA_NS,
  latestConditions,
  mergePatch,
  namespaceReady,
  routeCondition,
  type ConditionExpectation,
  type ListenerExpectation,
} from './status-checks.js';

/**
 * The GATEWAY-HTTP core cases beyond the first twenty (EXPECTATIONS.md §2), restated from the
 * upstream Go tests: two-route precedence, listener ∩ route hostnames, the HTTPS listener, the
 * Service kinds, a route's observedGeneration and listener attachedRoutes.
 */

const TRUE = (type: string, reason?: string): ConditionExpectation => ({
  type,
  status: 'True',
  ...(reason ? { reason } : {}),
});
const FALSE = (type: string, reason?: string): ConditionExpectation => ({
  type,
  status: 'False',
  ...(reason ? { reason } : {}),
});
const listener = (
  name: string,
  attachedRoutes: number,
  conditions: readonly ConditionExpectation[] = [TRUE('Accepted'), TRUE('ResolvedRefs')],
): ListenerExpectation => ({ name, kinds: ['HTTPRoute'], attachedRoutes, conditions });

const at = (
  n: number,
  host: string,
  path: string,
  extra: Partial<HttpExpectation> = {},
): HttpExpectation => ({ host, path, backend: `infra-backend-v${n}`, ...extra });
const none = (host: string, path: string, extra: Partial<HttpExpectation> = {}) => ({
  host,
  path,
  status: 404,
  ...extra,
});

const INTERSECTION = 'httproute-hostname-intersection';
const INTERSECTION_ALL = 'httproute-hostname-intersection-all';
const on = (gateway: string) => (x: HttpExpectation) => ({ ...x, gateway });

const intersectionRequests: readonly HttpExpectation[] = [
  at(1, 'very.specific.com', '/s1'),
  at(1, 'very.specific.com:1234', '/s1'),
  none('non.matching.com', '/s1'),
  none('foo.nonmatchingwildcard.io', '/s1'),
  none('foo.wildcard.io', '/s1'),
  none('very.specific.com', '/non-matching-prefix'),
  at(2, 'foo.wildcard.io', '/s2'),
  at(2, 'bar.wildcard.io', '/s2'),
  at(2, 'foo.bar.wildcard.io', '/s2'),
  none('non.matching.com', '/s2'),
  none('wildcard.io', '/s2'),
  none('very.specific.com', '/s2'),
  none('foo.wildcard.io', '/non-matching-prefix'),
  at(3, 'very.specific.com', '/s3'),
  none('non.matching.com', '/s3'),
  none('foo.specific.com', '/s3'),
  none('foo.wildcard.io', '/s3'),
  none('very.specific.com', '/non-matching-prefix'),
  at(1, 'foo.anotherwildcard.io', '/s4'),
  at(1, 'bar.anotherwildcard.io', '/s4'),
  at(1, 'foo.bar.anotherwildcard.io', '/s4'),
  none('anotherwildcard.io', '/s4'),
  none('foo.wildcard.io', '/s4'),
  none('very.specific.com', '/s4'),
  none('foo.anotherwildcard.io', '/non-matching-prefix'),
  none('specific.but.wrong.com', '/s5'),
  none('wildcard.io', '/s5'),
].map(on(INTERSECTION));

const intersectionAllRequests: readonly HttpExpectation[] = [
  at(2, 'first.com', '/'),
  at(2, 'sub.first.com', '/'),
  at(2, 'second.com', '/'),
  at(2, 'sub.second.com', '/'),
  none('third.com', '/'),
  none('sub.third.com', '/'),
].map(on(INTERSECTION_ALL));

interface PodItem {
  metadata: { name: string; namespace: string; uid?: string };
  spec?: { nodeName?: string };
  status?: { podIPs?: { ip: string }[]; podIP?: string };
}

/** As upstream: the manual EndpointSlices get the infra-backend-v1 pods' IPv4 addresses (no IPv6 pod address exists, so the ip6 slices stay empty). */
async function fillEndpointSlices(t: CaseTools): Promise<void> {
  const pods = await t.stack.get<{ items: PodItem[] }>(
    `/api/v1/namespaces/${INFRA_NS}/pods?labelSelector=${encodeURIComponent('app=infra-backend-v1')}`,
  );
  const items = pods?.items ?? [];
  if (items.length === 0) throw new Error('infra-backend-v1 has no pods');
  const endpoints = items.flatMap((p) =>
    (p.status?.podIPs ?? (p.status?.podIP ? [{ ip: p.status.podIP }] : []))
      .filter((a) => !a.ip.includes(':'))
      .map((a) => ({
        addresses: [a.ip],
        conditions: { ready: true, serving: true, terminating: false },
        ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
        targetRef: {
          kind: 'Pod',
          name: p.metadata.name,
          namespace: p.metadata.namespace,
          ...(p.metadata.uid ? { uid: p.metadata.uid } : {}),
        },
      })),
  );
  for (const prefix of ['manual-endpointslices', 'headless-manual-endpointslices'])
    await mergePatch(
      t.stack,
      `/apis/discovery.k8s.io/v1/namespaces/${INFRA_NS}/endpointslices/${prefix}-ip4`,
      { endpoints },
    );
}

async function serviceTypes(t: CaseTools): Promise<string | undefined> {
  await fillEndpointSlices(t);
  for (const path of ['/manual-endpointslices', '/headless-manual-endpointslices', '/headless']) {
    const why = await t.expect({ path, backend: 'infra-backend-v1' });
    if (why) return why;
  }
  return undefined;
}

async function routeGenerationBump(t: CaseTools): Promise<string | undefined> {
  const route = 'observed-generation-bump';
  const path = httpRoutePath(route);
  const first = (await namespaceReady(t.stack)) ?? (await latestConditions(t.stack, path));
  if (first) return first;
  const before = await generationOf(t.stack, path);
  await mergePatch(t.stack, path, {
    spec: { rules: [{ backendRefs: [{ name: 'infra-backend-v2', port: 8080 }] }] },
  });
  const why =
    (await routeCondition(t.stack, route, 'same-namespace', TRUE('Accepted'))) ??
    (await routeCondition(
      t.stack,
      route,
      'same-namespace',
      TRUE('ResolvedRefs', 'ResolvedRefs'),
    )) ??
    (await latestConditions(t.stack, path));
  if (why) return why;
  const after = await generationOf(t.stack, path);
  return after === before ? `generation stayed ${before} after the patch` : undefined;
}

export const HTTP_CORE_CASES: readonly GatewayCase[] = [
  {
    name: 'HTTPRouteMatchingAcrossRoutes',
    file: 'httproute-matching-across-routes.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'matching-part1' }, { name: 'matching-part2' }],
    requests: [
      at(1, 'example.com', '/'),
      at(1, 'example.com', '/example'),
      at(1, 'example.net', '/example'),
      at(1, 'example.com', '/example', { headers: { Version: 'one' } }),
      at(2, 'example.com', '/v2'),
      at(1, 'example.net', '/v2'),
      at(2, 'example.com', '/v2/example'),
      at(2, 'example.com', '/', { headers: { Version: 'two' } }),
    ],
  },
  {
    name: 'HTTPRouteHostnameIntersection',
    file: 'httproute-hostname-intersection.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: [INTERSECTION, INTERSECTION_ALL],
    routes: [
      { name: 'specific-host-matches-listener-specific-host' },
      { name: 'specific-host-matches-listener-wildcard-host' },
      { name: 'wildcard-host-matches-listener-specific-host' },
      { name: 'wildcard-host-matches-listener-wildcard-host' },
      { name: 'no-intersecting-hosts', accepted: 'NoMatchingListenerHostname' },
      { name: INTERSECTION_ALL },
    ],
    listeners: {
      [INTERSECTION]: [
        listener('listener-1', 2),
        listener('listener-2', 1),
        listener('listener-3', 1),
      ],
    },
    requests: [...intersectionRequests, ...intersectionAllRequests],
  },
  {
    name: 'HTTPRouteHTTPSListener',
    file: 'httproute-https-listener.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: ['same-namespace-with-https-listener'],
    routes: [{ name: 'httproute-https-test' }, { name: 'httproute-https-test-no-hostname' }],
    requests: [
      at(1, 'example.org', '/'),
      none('unknown-example.org', '/'),
      at(2, 'second-example.org', '/'),
    ].map((x) => ({ ...x, https: true, gateway: 'same-namespace-with-https-listener' })),
  },
  {
    name: 'HTTPRouteServiceTypes',
    file: 'httproute-service-types.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'service-types' }],
    requests: [],
    script: serviceTypes,
  },
  {
    name: 'HTTPRouteObservedGenerationBump',
    file: 'httproute-observed-generation-bump.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: [],
    routes: [],
    requests: [],
    script: routeGenerationBump,
  },
  {
    name: 'GatewayWithAttachedRoutes',
    file: 'gateway-with-attached-routes.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: [],
    routes: [],
    listeners: {
      'gateway-with-one-attached-route': [listener('http', 1)],
      'gateway-with-two-attached-routes': [listener('http', 2)],
      'unresolved-gateway-with-one-attached-unresolved-route': [
        listener('tls', 1, [FALSE('Programmed'), FALSE('ResolvedRefs')]),
      ],
    },
    routeConditions: [
      {
        route: 'http-route-not-accepted',
        gateway: 'gateway-with-two-attached-routes',
        condition: FALSE('Accepted', 'NoMatchingListenerHostname'),
      },
      {
        route: 'http-route-4',
        gateway: 'unresolved-gateway-with-one-attached-unresolved-route',
        condition: FALSE('ResolvedRefs'),
      },
    ],
    requests: [],
  },
];

export { TRUE, FALSE, listener };
