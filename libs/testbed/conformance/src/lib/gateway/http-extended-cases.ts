import type { GatewayCase } from './cases.js';
import type { HttpExpectation } from './judge.js';

/**
 * GATEWAY-HTTP extended cases (one upstream feature each beyond core), restated from the upstream
 * Go tests: query parameter and method matching, the 303/307/308 redirect codes, scheme and port
 * redirects. A redirect to a listener port carries the test-bed's port offset, as the listener
 * does (port 8083 is bound, and redirected to, as 18083).
 */

const PORT_OFFSET = 10_000;
const to = (n: number, path: string, extra: Partial<HttpExpectation> = {}): HttpExpectation => ({
  path,
  backend: `infra-backend-v${n}`,
  ...extra,
});
const missing = (path: string, extra: Partial<HttpExpectation> = {}): HttpExpectation => ({
  path,
  status: 404,
  ...extra,
});
const redirect = (
  path: string,
  status: number,
  where: NonNullable<HttpExpectation['redirect']>,
  extra: Partial<HttpExpectation> = {},
): HttpExpectation => ({ path, status, redirect: where, ...extra });

const extended = (
  name: string,
  file: string,
  route: string,
  requests: readonly HttpExpectation[],
): GatewayCase => ({
  name,
  file,
  profile: 'GATEWAY-HTTP',
  level: 'extended',
  routes: [{ name: route }],
  requests,
});

const port = 8083 + PORT_OFFSET;

const MATCHING_AND_REDIRECTS: readonly GatewayCase[] = [
  extended(
    'HTTPRouteQueryParamMatching',
    'httproute-query-param-matching.yaml',
    'query-param-matching',
    [
      to(1, '/?animal=whale'),
      to(2, '/?animal=dolphin'),
      to(3, '/?animal=dolphin&color=blue'),
      to(3, '/?ANIMAL=Whale'),
      to(1, '/?animal=whale&otherparam=irrelevant'),
      to(2, '/?animal=dolphin&color=yellow'),
      missing('/?color=blue'),
      missing('/?animal=dog'),
      missing('/?animal=whaledolphin'),
      missing('/'),
      to(1, '/path1?animal=whale'),
      to(2, '/?animal=whale', { headers: { version: 'one' } }),
      to(3, '/path2?animal=whale', { headers: { version: 'two' } }),
      to(1, '/path3?animal=shark'),
      to(1, '/path4?animal=kraken', { headers: { version: 'three' } }),
      missing('/?animal=shark'),
      missing('/path4?animal=kraken'),
      to(1, '/path5?animal=hydra'),
      to(3, '/?animal=hydra', { headers: { version: 'four' } }),
    ],
  ),
  extended('HTTPRouteMethodMatching', 'httproute-method-matching.yaml', 'method-matching', [
    to(1, '/', { method: 'POST' }),
    to(2, '/', { method: 'GET' }),
    missing('/', { method: 'HEAD' }),
    to(1, '/path1', { method: 'GET' }),
    to(2, '/', { method: 'PUT', headers: { version: 'one' } }),
    to(3, '/path2', { method: 'POST', headers: { version: 'two' } }),
    to(1, '/path3', { method: 'PATCH' }),
    to(1, '/path4', { method: 'DELETE', headers: { version: 'three' } }),
    missing('/', { method: 'PUT' }),
    missing('/path4', { method: 'DELETE' }),
    to(1, '/path5', { method: 'PATCH' }),
    to(2, '/', { method: 'PATCH', headers: { version: 'four' } }),
  ]),
  extended('HTTPRoute303Redirect', 'httproute-303-redirect.yaml', '303-redirect', [
    redirect('/see-other', 303, { path: '/see-other' }, { method: 'POST' }),
  ]),
  extended('HTTPRoute307Redirect', 'httproute-307-redirect.yaml', '307-redirect', [
    redirect('/temporary', 307, { path: '/temporary' }),
  ]),
  extended('HTTPRoute308Redirect', 'httproute-308-redirect.yaml', '308-redirect', [
    redirect('/permanent', 308, { path: '/permanent' }),
  ]),
  extended('HTTPRouteRedirectScheme', 'httproute-redirect-scheme.yaml', 'redirect-scheme', [
    redirect('/scheme', 302, { scheme: 'https' }),
    redirect('/scheme-and-host', 302, { scheme: 'https', host: 'example.org' }),
    redirect('/scheme-and-status', 301, { scheme: 'https' }),
    redirect('/scheme-and-host-and-status', 302, { scheme: 'https', host: 'example.org' }),
  ]),
  extended('HTTPRouteRedirectPort', 'httproute-redirect-port.yaml', 'redirect-port', [
    redirect('/port', 302, { port }),
    redirect('/port-and-host', 302, { port, host: 'example.org' }),
    redirect('/port-and-status', 301, { port }),
    redirect('/port-and-host-and-status', 302, { port, host: 'example.org' }),
  ]),
];

const responseModifier = (
  path: string,
  backendSets: Record<string, string>,
  responseHeaders: Record<string, string>,
  extra: Partial<HttpExpectation> = {},
): HttpExpectation => ({ ...to(1, path), backendSets, responseHeaders, ...extra });

/** HTTPRouteResponseHeaderModifier: the headers the backend answers with, and what the client must get. */
const RESPONSE_HEADER_MODIFIER: GatewayCase = extended(
  'HTTPRouteResponseHeaderModifier',
  'httproute-response-header-modifier.yaml',
  'response-header-modifier',
  [
    responseModifier(
      '/set',
      { 'Some-Other-Header': 'val' },
      { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' },
    ),
    responseModifier(
      '/set',
      { 'Some-Other-Header': 'val', 'X-Header-Set': 'some-other-value' },
      { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' },
    ),
    responseModifier(
      '/add',
      { 'Some-Other-Header': 'val' },
      { 'Some-Other-Header': 'val', 'X-Header-Add': 'add-appends-values' },
    ),
    responseModifier(
      '/add',
      { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value' },
      { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value,add-appends-values' },
    ),
    responseModifier(
      '/remove',
      { 'X-Header-Remove': 'val' },
      {},
      {
        responseAbsent: ['X-Header-Remove'],
      },
    ),
    responseModifier(
      '/multiple',
      {
        'X-Header-Set-2': 'set-val-2',
        'X-Header-Add-2': 'add-val-2',
        'X-Header-Remove-2': 'remove-val-2',
        'Another-Header': 'another-header-val',
        'X-Header-Remove-1': 'val',
      },
      {
        'X-Header-Set-1': 'header-set-1',
        'X-Header-Set-2': 'header-set-2',
        'X-Header-Add-1': 'header-add-1',
        'X-Header-Add-2': 'add-val-2,header-add-2',
        'X-Header-Add-3': 'header-add-3',
        'Another-Header': 'another-header-val',
      },
      { responseAbsent: ['X-Header-Remove-1', 'X-Header-Remove-2'] },
    ),
    responseModifier(
      '/case-insensitivity',
      {
        'x-header-set': 'original-val-set',
        'x-header-add': 'original-val-add',
        'x-header-remove': 'original-val-remove',
        'Another-Header': 'another-header-val',
      },
      {
        'X-Header-Set': 'header-set',
        'X-Header-Add': 'original-val-add,header-add',
        'X-Lowercase-Add': 'lowercase-add',
        'X-Mixedcase-Add-1': 'mixedcase-add-1',
        'X-Mixedcase-Add-2': 'mixedcase-add-2',
        'X-Uppercase-Add': 'uppercase-add',
        'Another-Header': 'another-header-val',
      },
      { responseAbsent: ['x-header-remove', 'X-Header-Remove'] },
    ),
    responseModifier(
      '/response-and-request-header-modifiers',
      {
        'X-Header-Set-2': 'set-val-2',
        'X-Header-Add-2': 'add-val-2',
        'X-Header-Remove-2': 'remove-val-2',
        'Another-Header': 'another-header-val',
        'X-Header-Remove-1': 'remove-val-1',
        'X-Header-Echo': 'echo',
      },
      {
        'X-Header-Set-1': 'header-set-1',
        'X-Header-Set-2': 'header-set-2',
        'X-Header-Add-1': 'header-add-1',
        'X-Header-Add-2': 'add-val-2,header-add-2',
        'Another-Header': 'another-header-val',
        'X-Header-Echo': 'echo',
      },
      {
        headers: {
          'X-Header-Remove': 'remove-val',
          'X-Header-Add-Append': 'append-val-1',
          'X-Header-Echo': 'echo',
        },
        seen: {
          'X-Header-Add': 'header-val-1',
          'X-Header-Set': 'set-overwrites-values',
          'X-Header-Add-Append': 'append-val-1,header-val-2',
          'X-Header-Echo': 'echo',
        },
        absent: ['X-Header-Remove'],
        responseAbsent: ['X-Header-Remove-1', 'X-Header-Remove-2'],
      },
    ),
  ],
);

const rewritten = (
  n: number,
  path: string,
  seenHost: string,
  extra: Partial<HttpExpectation> = {},
) => to(n, path, { host: 'rewrite.example', seenHost, ...extra });

const REWRITE_HOST = extended(
  'HTTPRouteRewriteHost',
  'httproute-rewrite-host.yaml',
  'rewrite-host',
  [
    rewritten(1, '/one', 'one.example.org'),
    rewritten(2, '/two', 'example.org'),
    rewritten(2, '/rewrite-host-and-modify-headers', 'test.example.org', {
      headers: { 'X-Header-Remove': 'remove-val', 'X-Header-Add-Append': 'append-val-1' },
      seen: {
        'X-Header-Add': 'header-val-1',
        'X-Header-Add-Append': 'append-val-1,header-val-2',
        'X-Header-Set': 'set-overwrites-values',
      },
      absent: ['X-Header-Remove'],
    }),
  ],
);

/** A parentRef port no listener has: not accepted (NoMatchingParent), nothing attached. */
const portNotMatching = (
  name: string,
  file: string,
  route: string,
  gateway: string,
): GatewayCase => ({
  name,
  file,
  profile: 'GATEWAY-HTTP',
  level: 'extended',
  gateways: [],
  routes: [{ name: route, accepted: 'NoMatchingParent' }],
  attached: { [`${gateway}/http`]: 0 },
  requests: [],
});

const PORTS = 'httproute-listener-port-matching';
const onPort = (x: HttpExpectation, port: number) => ({ ...x, gateway: PORTS, port });

/** HTTPRouteListenerPortMatching: routes bound by parentRef port, requests to each listener port. */
const LISTENER_PORT_MATCHING: GatewayCase = {
  ...extended('HTTPRouteListenerPortMatching', `${PORTS}.yaml`, 'backend-v1', [
    onPort(to(1, '/', { host: 'foo.com' }), 80),
    onPort(to(2, '/', { host: 'foo.com:8080' }), 8080),
    onPort(to(2, '/', { host: 'bar.com:8080' }), 8080),
    onPort(to(3, '/', { host: 'foo.com:8090' }), 8090),
    onPort(missing('/', { host: 'bar.com:8090' }), 8090),
  ]),
  gateways: [PORTS],
  routes: [{ name: 'backend-v1' }, { name: 'backend-v2' }, { name: 'backend-v3' }],
};

export const HTTP_EXTENDED_CASES: readonly GatewayCase[] = [
  LISTENER_PORT_MATCHING,
  ...MATCHING_AND_REDIRECTS,
  RESPONSE_HEADER_MODIFIER,
  REWRITE_HOST,
  portNotMatching(
    'HTTPRouteInvalidParentRefNotMatchingListenerPort',
    'httproute-invalid-parentref-not-matching-listener-port.yaml',
    'httproute-listener-not-matching-route-port',
    'same-namespace',
  ),
  portNotMatching(
    'HTTPRouteInvalidParentRefSectionNameNotMatchingPort',
    'httproute-invalid-parentref-section-name-not-matching-port.yaml',
    'httproute-listener-section-name-not-matching-port',
    'gateway-with-one-not-matching-port-and-section-name-route',
  ),
];
