import type { Stack } from '#testbed/stack';
import type { HttpExpectation } from './judge.js';
import type { ConditionExpectation, ListenerExpectation } from './status-checks.js';

const INFRA = 'gateway-conformance-infra';
const WEB = 'gateway-conformance-web-backend';
const APP = 'gateway-conformance-app-backend';

/** A route condition the case expects on its parent entry of our controller. */
export interface RouteCheck {
  readonly kind?: 'HTTPRoute' | 'GRPCRoute';
  readonly namespace?: string;
  readonly name: string;
  readonly accepted?: string;
  readonly resolvedRefs?: string;
}

/** One upstream test as data: its manifest, the status it must reach and the traffic it must pass. */
export interface GatewayCase {
  readonly name: string;
  readonly file: string;
  readonly profile: 'GATEWAY-HTTP' | 'GATEWAY-GRPC';
  readonly level: 'core' | 'extended';
  /** Gateways that must be Programmed before requests are sent (default same-namespace). */
  readonly gateways?: readonly string[];
  readonly routes: readonly RouteCheck[];
  /** attachedRoutes per "gateway/listener". */
  readonly attached?: Readonly<Record<string, number>>;
  readonly requests: readonly HttpExpectation[];
  /** Weighted: backend → weight, judged over `weightedRequests` answers to GET /. */
  readonly weights?: Readonly<Record<string, number>>;
  /** Listener status per Gateway (infra namespace), as upstream's GatewayStatusMustHaveListeners. */
  readonly listeners?: Readonly<Record<string, readonly ListenerExpectation[]>>;
  /** Gateway conditions per Gateway (infra namespace), as upstream's GatewayMustHaveCondition. */
  readonly gatewayConditions?: Readonly<Record<string, readonly ConditionExpectation[]>>;
  /** One condition on a route's parent entry for a Gateway, as upstream's HTTPRouteMustHaveCondition. */
  readonly routeConditions?: readonly {
    readonly route: string;
    readonly gateway: string;
    readonly condition: ConditionExpectation;
  }[];
  /** The test's later steps (mutations and what must follow them), run after the checks above. */
  readonly script?: (t: CaseTools) => Promise<string | undefined>;
}

/** What a case's script may use: the stack, and an expectation judged as the requests are. */
export interface CaseTools {
  readonly stack: Stack;
  /** Why the expectation did not hold three times in a row in time (its Gateway default same-namespace). */
  readonly expect: (x: HttpExpectation) => Promise<string | undefined>;
}

const v = (n: number, path: string, extra: Partial<HttpExpectation> = {}): HttpExpectation => ({
  path,
  backend: `infra-backend-v${n}`,
  ...extra,
});
const status = (
  code: number,
  path: string,
  extra: Partial<HttpExpectation> = {},
): HttpExpectation => ({
  path,
  status: code,
  ...extra,
});

export const GATEWAY_CASES: readonly GatewayCase[] = [
  {
    name: 'HTTPRouteSimpleSameNamespace',
    file: 'httproute-simple-same-namespace.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'gateway-conformance-infra-test' }],
    requests: [v(1, '/')],
  },
  {
    name: 'HTTPRouteCrossNamespace',
    file: 'httproute-cross-namespace.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: ['backend-namespaces'],
    routes: [{ namespace: WEB, name: 'cross-namespace' }],
    requests: [
      { gateway: 'backend-namespaces', path: '/', backend: 'web-backend', namespace: WEB },
    ],
  },
  {
    name: 'HTTPRouteExactPathMatching',
    file: 'httproute-exact-path-matching.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'exact-matching' }],
    requests: [
      v(1, '/one'),
      v(2, '/two'),
      status(404, '/'),
      status(404, '/one/example'),
      status(404, '/two/'),
      status(404, '/Two'),
    ],
  },
  {
    name: 'HTTPRouteHeaderMatching',
    file: 'httproute-header-matching.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'header-matching' }],
    requests: [
      v(1, '/', { headers: { Version: 'one' } }),
      v(2, '/', { headers: { Version: 'two' } }),
      v(1, '/', { headers: { Version: 'two', Color: 'orange' } }),
      v(2, '/', { headers: { Version: 'two', Color: 'blue' } }),
      status(404, '/', { headers: { Color: 'orange' } }),
      status(404, '/', { headers: { 'Some-Other-Header': 'one' } }),
      v(1, '/', { headers: { Color: 'blue' } }),
      v(1, '/', { headers: { Color: 'green' } }),
      v(2, '/', { headers: { Color: 'red' } }),
      v(2, '/', { headers: { Color: 'yellow' } }),
      status(404, '/', { headers: { Color: 'purple' } }),
    ],
  },
  {
    name: 'HTTPRouteMatching',
    file: 'httproute-matching.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'matching' }],
    requests: [
      v(1, '/'),
      v(1, '/example'),
      v(1, '/', { headers: { Version: 'one' } }),
      v(2, '/v2'),
      v(2, '/v2/example'),
      v(2, '/v2/'),
      v(2, '/', { headers: { Version: 'two' } }),
      v(1, '/v2example'),
      v(1, '/foo/v2/example'),
    ],
  },
  {
    name: 'HTTPRoutePathMatchOrder',
    file: 'httproute-path-match-order.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'path-matching-order' }],
    requests: [
      v(3, '/match/exact/one'),
      v(2, '/match/exact'),
      v(1, '/match'),
      v(2, '/match/prefix/one/any'),
      v(1, '/match/prefix/any'),
      v(3, '/match/any'),
    ],
  },
  {
    name: 'HTTPRouteListenerHostnameMatching',
    file: 'httproute-listener-hostname-matching.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: ['httproute-listener-hostname-matching'],
    routes: [{ name: 'backend-v1' }, { name: 'backend-v2' }, { name: 'backend-v3' }],
    requests: [
      ...[
        ['bar.com', 1],
        ['foo.bar.com', 2],
        ['baz.bar.com', 3],
        ['boo.bar.com', 3],
        ['multiple.prefixes.bar.com', 3],
        ['multiple.prefixes.foo.com', 3],
      ].map(([host, n]) =>
        v(Number(n), '/', { host: String(host), gateway: 'httproute-listener-hostname-matching' }),
      ),
      status(404, '/', { host: 'foo.com', gateway: 'httproute-listener-hostname-matching' }),
      status(404, '/', {
        host: 'no.matching.host',
        gateway: 'httproute-listener-hostname-matching',
      }),
    ],
  },
  {
    name: 'HTTPRouteMultipleGateways',
    file: 'httproute-multiple-gateways.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: ['same-namespace', 'all-namespaces'],
    routes: [
      { name: 'multiple-gateways-shared-route' },
      { name: 'same-namespace-dedicated-route' },
      { name: 'all-namespaces-dedicated-route' },
    ],
    requests: [
      v(1, '/shared', { gateway: 'same-namespace' }),
      v(2, '/', { gateway: 'same-namespace' }),
      v(1, '/shared', { gateway: 'all-namespaces' }),
      v(3, '/', { gateway: 'all-namespaces' }),
    ],
  },
  {
    name: 'HTTPRouteNoBackendRefs',
    file: 'httproute-omitted-backendrefs.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'omitted-backendrefs', resolvedRefs: 'ResolvedRefs' }],
    requests: [
      v(1, '/forward'),
      status(500, '/omitted-no-forward'),
      status(500, '/empty-no-forward'),
    ],
  },
  {
    name: 'HTTPRouteInvalidNonExistentBackendRef',
    file: 'httproute-invalid-nonexistent-backendref.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'invalid-nonexistent-backend-ref', resolvedRefs: 'BackendNotFound' }],
    requests: [status(500, '/')],
  },
  {
    name: 'HTTPRouteInvalidBackendRefUnknownKind',
    file: 'httproute-invalid-backendref-unknown-kind.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'invalid-backend-ref-unknown-kind', resolvedRefs: 'InvalidKind' }],
    requests: [status(500, '/v2')],
  },
  {
    name: 'HTTPRouteInvalidCrossNamespaceBackendRef',
    file: 'httproute-invalid-cross-namespace-backend-ref.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'invalid-cross-namespace-backend-ref', resolvedRefs: 'RefNotPermitted' }],
    requests: [status(500, '/')],
  },
  {
    name: 'HTTPRouteInvalidReferenceGrant',
    file: 'httproute-invalid-reference-grant.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'reference-grant', resolvedRefs: 'RefNotPermitted' }],
    requests: [status(500, '/')],
  },
  {
    name: 'HTTPRouteReferenceGrant',
    file: 'httproute-reference-grant.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'reference-grant' }],
    requests: [{ path: '/', backend: 'web-backend', namespace: WEB }],
    // as upstream: once the grant is deleted, the route's backend is refused (500)
    script: async (t) => {
      await t.stack.delete(
        `/apis/gateway.networking.k8s.io/v1/namespaces/${WEB}/referencegrants/reference-grant`,
      );
      return t.expect(status(500, '/'));
    },
  },
  {
    name: 'HTTPRoutePartiallyInvalidViaInvalidReferenceGrant',
    file: 'httproute-partially-invalid-via-invalid-reference-grant.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'invalid-reference-grant', resolvedRefs: 'RefNotPermitted' }],
    requests: [status(500, '/v2'), { path: '/', backend: 'app-backend-v1', namespace: APP }],
  },
  {
    name: 'HTTPRouteInvalidCrossNamespaceParentRef',
    file: 'httproute-invalid-cross-namespace-parent-ref.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [
      {
        namespace: WEB,
        name: 'invalid-cross-namespace-parent-ref',
        accepted: 'NotAllowedByListeners',
      },
    ],
    attached: { 'same-namespace/http': 0 },
    requests: [],
  },
  {
    name: 'HTTPRouteInvalidParentRefNotMatchingSectionName',
    file: 'httproute-invalid-parentref-not-matching-section-name.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [
      { name: 'httproute-listener-not-matching-section-name', accepted: 'NoMatchingParent' },
    ],
    attached: { 'same-namespace/http': 0 },
    requests: [],
  },
  {
    name: 'HTTPRouteRedirectHostAndStatus',
    file: 'httproute-redirect-host-and-status.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'redirect-host-and-status' }],
    requests: [
      status(302, '/hostname-redirect', { redirect: { host: 'example.org' } }),
      status(301, '/host-and-status', { redirect: { host: 'example.org' } }),
    ],
  },
  {
    name: 'HTTPRouteRequestHeaderModifier',
    file: 'httproute-request-header-modifier.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'request-header-modifier' }],
    requests: [
      v(1, '/set', {
        headers: { 'Some-Other-Header': 'val' },
        seen: { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' },
      }),
      v(1, '/set', {
        headers: { 'Some-Other-Header': 'val', 'X-Header-Set': 'some-other-value' },
        seen: { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' },
      }),
      v(1, '/add', {
        headers: { 'Some-Other-Header': 'val' },
        seen: { 'Some-Other-Header': 'val', 'X-Header-Add': 'add-appends-values' },
      }),
      v(1, '/add', {
        headers: { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value' },
        seen: { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value,add-appends-values' },
      }),
      v(1, '/remove', {
        headers: { 'X-Header-Remove': 'val' },
        seen: {},
        absent: ['X-Header-Remove'],
      }),
      v(1, '/multiple', {
        headers: {
          'X-Header-Set-2': 'set-val-2',
          'X-Header-Add-2': 'add-val-2',
          'X-Header-Remove-2': 'remove-val-2',
          'Another-Header': 'another-header-val',
        },
        seen: {
          'X-Header-Set-1': 'header-set-1',
          'X-Header-Set-2': 'header-set-2',
          'X-Header-Add-1': 'header-add-1',
          'X-Header-Add-2': 'add-val-2,header-add-2',
          'X-Header-Add-3': 'header-add-3',
          'Another-Header': 'another-header-val',
        },
        absent: ['X-Header-Remove-1', 'X-Header-Remove-2'],
      }),
      v(1, '/case-insensitivity', {
        headers: {
          'x-header-set': 'original-val-set',
          'x-header-add': 'original-val-add',
          'x-header-remove': 'original-val-remove',
          'Another-Header': 'another-header-val',
        },
        seen: {
          'X-Header-Set': 'header-set',
          'X-Header-Add': 'original-val-add,header-add',
          'Another-Header': 'another-header-val',
        },
        absent: ['x-header-remove', 'X-Header-Remove'],
      }),
    ],
  },
  {
    name: 'HTTPRouteWeight',
    file: 'httproute-weight.yaml',
    profile: 'GATEWAY-HTTP',
    level: 'core',
    routes: [{ name: 'weighted-backends' }],
    requests: [],
    weights: { 'infra-backend-v1': 70, 'infra-backend-v2': 30, 'infra-backend-v3': 0 },
  },
];

export { INFRA };
