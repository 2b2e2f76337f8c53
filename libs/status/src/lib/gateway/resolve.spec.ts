import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generateCertificate } from '#testbed/kube-sim';
import { resolveGateways } from './resolve.js';
import type { GatewayInputs, GatewayModel, ResolvedGateway, RouteStatus } from './types.js';

const DIR = fileURLToPath(new URL('../../../../../test/conformance/gateway-api/', import.meta.url));
const CONTROLLER = 'haproxy-haptic.org/gateway-controller';

interface K8sObject {
  kind: string;
  metadata: { name: string; namespace?: string; generation?: number };
}

function load(file: string): K8sObject[] {
  const text = readFileSync(join(DIR, file), 'utf8').replaceAll('{GATEWAY_CLASS_NAME}', 'haptic');
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null && typeof o.kind === 'string')
    .map((o) => ({ ...o, metadata: { generation: 1, ...o.metadata } }));
}

let secrets: object[] = [];
beforeAll(async () => {
  const tls = await generateCertificate({ dnsNames: ['*', '*.org', '*.wildcard.org'] });
  const data = {
    'tls.crt': Buffer.from(tls.cert).toString('base64'),
    'tls.key': Buffer.from(tls.key).toString('base64'),
  };
  const secret = (namespace: string, name: string) => ({
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { namespace, name },
    data,
  });
  secrets = [
    secret('gateway-conformance-infra', 'tls-validity-checks-certificate'),
    secret('gateway-conformance-web-backend', 'certificate'),
  ];
});

function inputsOf(objects: K8sObject[]): GatewayInputs {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  return {
    controllerName: CONTROLLER,
    gatewayClasses: [
      {
        kind: 'GatewayClass',
        metadata: { name: 'haptic', generation: 1 },
        spec: { controllerName: CONTROLLER },
      },
    ],
    gateways: of('Gateway'),
    httpRoutes: of('HTTPRoute'),
    grpcRoutes: of('GRPCRoute'),
    referenceGrants: of('ReferenceGrant'),
    services: of('Service'),
    secrets: [...secrets, ...of('Secret')],
    namespaces: of('Namespace'),
    addressOf: (ns, name) => (name === 'no-address' ? undefined : `127.80.0.${ns.length % 200}`),
  };
}

/** Resolves the base manifests plus one upstream test's manifests. */
const model = (test: string, edit: (o: K8sObject[]) => K8sObject[] = (o) => o): GatewayModel =>
  resolveGateways(inputsOf(edit([...load('base/manifests.yaml'), ...load(`tests/${test}`)])));

function gateway(m: GatewayModel, name: string): ResolvedGateway {
  const g = m.gateways.find((x) => x.name === name);
  if (!g) throw new Error(`no gateway ${name}`);
  return g;
}
function route(m: GatewayModel, name: string): RouteStatus {
  const r = m.routes.find((x) => x.name === name);
  if (!r) throw new Error(`no route status for ${name}`);
  return r;
}
const reasons = (r: RouteStatus, type: string) =>
  r.parents.map((p) => p.conditions.find((c) => c.type === type)?.reason);
const listenerCond = (g: ResolvedGateway, listener: string, type: string) =>
  g.listeners.find((l) => l.name === listener)?.conditions.find((c) => c.type === type);
const attached = (g: ResolvedGateway) =>
  Object.fromEntries(g.listeners.map((l) => [l.name, l.attachedRoutes]));

describe('resolveGateways: attachment', () => {
  it('accepts only GatewayClasses of this controller and their Gateways', () => {
    const m = model('httproute-simple-same-namespace.yaml');
    expect(m.gatewayClasses.map((c) => c.conditions[0]?.reason)).toEqual(['Accepted']);
    expect(m.gateways.map((g) => g.name)).toContain('same-namespace');
    const g = gateway(m, 'same-namespace');
    expect(g.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Accepted', 'True'],
      ['Programmed', 'True'],
    ]);
    expect(reasons(route(m, 'gateway-conformance-infra-test'), 'Accepted')).toEqual(['Accepted']);
    expect(attached(g)).toEqual({ http: 1 });
  });

  it('intersects listener and route hostnames (HTTPRouteHostnameIntersection)', () => {
    const m = model('httproute-hostname-intersection.yaml');
    const g = gateway(m, 'httproute-hostname-intersection');
    expect(attached(g)).toEqual({ 'listener-1': 2, 'listener-2': 1, 'listener-3': 1 });
    expect(reasons(route(m, 'no-intersecting-hosts'), 'Accepted')).toEqual([
      'NoMatchingListenerHostname',
    ]);
    const hosts = (rule: string) =>
      g.frontends[0]?.entries.filter((e) => e.rule.route.name === rule).map((e) => e.hostname);
    expect(hosts('specific-host-matches-listener-specific-host')).toEqual(['very.specific.com']);
    expect(hosts('specific-host-matches-listener-wildcard-host')?.sort()).toEqual([
      'bar.wildcard.io',
      'foo.bar.wildcard.io',
      'foo.wildcard.io',
    ]);
    expect(hosts('wildcard-host-matches-listener-specific-host')).toEqual(['very.specific.com']);
    expect(hosts('wildcard-host-matches-listener-wildcard-host')).toEqual(['*.anotherwildcard.io']);
  });

  it('refuses a route from a namespace the listener does not admit', () => {
    const m = model('httproute-invalid-cross-namespace-parent-ref.yaml');
    expect(reasons(route(m, 'invalid-cross-namespace-parent-ref'), 'Accepted')).toEqual([
      'NotAllowedByListeners',
    ]);
    expect(attached(gateway(m, 'same-namespace'))).toEqual({ http: 0 });
  });

  it('admits namespaces by label selector (HTTPRouteCrossNamespace)', () => {
    const m = model('httproute-cross-namespace.yaml');
    expect(reasons(route(m, 'cross-namespace'), 'Accepted')).toEqual(['Accepted']);
    expect(attached(gateway(m, 'backend-namespaces'))).toEqual({ http: 1 });
  });

  it('refuses a parentRef naming a sectionName the Gateway lacks', () => {
    const m = model('httproute-invalid-parentref-not-matching-section-name.yaml');
    expect(reasons(route(m, 'httproute-listener-not-matching-section-name'), 'Accepted')).toEqual([
      'NoMatchingParent',
    ]);
  });

  it('counts attached routes, and attaches to a listener whose certificate is missing (GatewayWithAttachedRoutes)', () => {
    const m = model('gateway-with-attached-routes.yaml');
    expect(attached(gateway(m, 'gateway-with-one-attached-route'))).toEqual({ http: 1 });
    expect(attached(gateway(m, 'gateway-with-two-attached-routes'))).toEqual({ http: 2 });
    const u = gateway(m, 'unresolved-gateway-with-one-attached-unresolved-route');
    expect(attached(u)).toEqual({ tls: 1 });
    expect(listenerCond(u, 'tls', 'ResolvedRefs')?.reason).toBe('InvalidCertificateRef');
    expect(listenerCond(u, 'tls', 'Programmed')?.status).toBe('False');
    expect(reasons(route(m, 'http-route-4'), 'ResolvedRefs')).toEqual(['BackendNotFound']);
  });

  it('attaches one route to two Gateways (HTTPRouteMultipleGateways)', () => {
    const m = model('httproute-multiple-gateways.yaml');
    expect(reasons(route(m, 'multiple-gateways-shared-route'), 'Accepted')).toEqual([
      'Accepted',
      'Accepted',
    ]);
    for (const name of ['same-namespace', 'all-namespaces'])
      expect(gateway(m, name).frontends[0]?.entries.some((e) => e.path.value === '/shared')).toBe(
        true,
      );
  });
});

describe('resolveGateways: references', () => {
  it('reports a missing Service as BackendNotFound and keeps the route accepted', () => {
    const m = model('httproute-invalid-nonexistent-backendref.yaml');
    const r = route(m, 'invalid-nonexistent-backend-ref');
    expect(reasons(r, 'Accepted')).toEqual(['Accepted']);
    expect(reasons(r, 'ResolvedRefs')).toEqual(['BackendNotFound']);
    const rule = m.rules.find((x) => x.route.name === 'invalid-nonexistent-backend-ref');
    expect(rule?.backends).toEqual([]);
    expect(rule?.invalidWeight).toBe(1);
  });

  it('reports an unknown backend kind as InvalidKind', () => {
    const m = model('httproute-invalid-backendref-unknown-kind.yaml');
    expect(reasons(route(m, 'invalid-backend-ref-unknown-kind'), 'ResolvedRefs')).toEqual([
      'InvalidKind',
    ]);
  });

  it('needs a ReferenceGrant for a cross-namespace backend, and honours a correct one', () => {
    const missing = model('httproute-invalid-cross-namespace-backend-ref.yaml');
    expect(reasons(route(missing, 'invalid-cross-namespace-backend-ref'), 'ResolvedRefs')).toEqual([
      'RefNotPermitted',
    ]);
    const wrong = model('httproute-invalid-reference-grant.yaml');
    expect(reasons(route(wrong, 'reference-grant'), 'ResolvedRefs')).toEqual(['RefNotPermitted']);
    const ok = model('httproute-reference-grant.yaml');
    expect(reasons(route(ok, 'reference-grant'), 'ResolvedRefs')).toEqual(['ResolvedRefs']);
    expect(ok.rules.find((r) => r.route.name === 'reference-grant')?.backends).toEqual([
      {
        namespace: 'gateway-conformance-web-backend',
        name: 'web-backend',
        port: 8080,
        weight: 1,
        serverWeight: 256,
      },
    ]);
    const deleted = model('httproute-reference-grant.yaml', (o) =>
      o.filter((x) => x.kind !== 'ReferenceGrant'),
    );
    expect(reasons(route(deleted, 'reference-grant'), 'ResolvedRefs')).toEqual(['RefNotPermitted']);
  });

  it('serves the granted rule of a partially invalid route', () => {
    const m = model('httproute-partially-invalid-via-invalid-reference-grant.yaml');
    const r = route(m, 'invalid-reference-grant');
    expect(reasons(r, 'Accepted')).toEqual(['Accepted']);
    expect(reasons(r, 'ResolvedRefs')).toEqual(['RefNotPermitted']);
    const rules = m.rules.filter((x) => x.route.name === 'invalid-reference-grant');
    expect(rules.map((x) => x.backends.map((b) => b.name))).toEqual([[], ['app-backend-v1']]);
  });

  it('drops weight-0 backends and keeps the weights (HTTPRouteWeight)', () => {
    const m = model('httproute-weight.yaml');
    expect(
      m.rules
        .find((r) => r.route.name === 'weighted-backends')
        ?.backends.map((b) => [b.name, b.weight]),
    ).toEqual([
      ['infra-backend-v1', 70],
      ['infra-backend-v2', 30],
    ]);
  });

  it('checks listener certificates: missing, wrong group/kind, malformed', () => {
    const m = model('gateway-invalid-tls-configuration.yaml');
    for (const name of [
      'gateway-certificate-nonexistent-secret',
      'gateway-certificate-unsupported-group',
      'gateway-certificate-unsupported-kind',
      'gateway-certificate-malformed-secret',
    ]) {
      const g = gateway(m, name);
      expect(listenerCond(g, 'https', 'ResolvedRefs')?.reason).toBe('InvalidCertificateRef');
      expect(listenerCond(g, 'https', 'Programmed')?.status).toBe('False');
      expect(g.frontends).toEqual([]);
    }
    const ok = gateway(
      model('httproute-https-listener.yaml'),
      'same-namespace-with-https-listener',
    );
    expect(ok.frontends[0]?.certificates).toEqual([
      { namespace: 'gateway-conformance-infra', name: 'tls-validity-checks-certificate' },
    ]);
  });

  it('needs a ReferenceGrant for a Secret of another namespace', () => {
    const missing = gateway(
      model('gateway-secret-missing-reference-grant.yaml'),
      'gateway-secret-missing-reference-grant',
    );
    expect(listenerCond(missing, 'https', 'ResolvedRefs')?.reason).toBe('RefNotPermitted');
    const invalid = gateway(
      model('gateway-secret-invalid-reference-grant.yaml'),
      'gateway-secret-invalid-reference-grant',
    );
    expect(listenerCond(invalid, 'https', 'ResolvedRefs')?.reason).toBe('RefNotPermitted');
    for (const test of [
      'gateway-secret-reference-grant-all-in-namespace',
      'gateway-secret-reference-grant-specific',
    ]) {
      const g = gateway(model(`${test}.yaml`), test);
      expect(listenerCond(g, 'https', 'ResolvedRefs')?.reason).toBe('ResolvedRefs');
    }
  });

  it('refuses unsupported protocols and route kinds on listeners', () => {
    const p = gateway(
      model('gateway-invalid-listeners-unsupported-protocol.yaml'),
      'gateway-only-unsupported-protocols',
    );
    expect(listenerCond(p, 'invalid', 'Accepted')?.reason).toBe('UnsupportedProtocol');
    const m = model('gateway-invalid-route-kind.yaml');
    const only = gateway(m, 'gateway-only-invalid-route-kind');
    expect(listenerCond(only, 'http', 'ResolvedRefs')?.reason).toBe('InvalidRouteKinds');
    expect(only.listeners[0]?.supportedKinds).toEqual([]);
    const both = gateway(m, 'gateway-supported-and-invalid-route-kind');
    expect(both.listeners[0]?.supportedKinds).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute' },
    ]);
  });

  it('reports unsupported route features as Accepted=False UnsupportedValue', () => {
    const m = model('httproute-request-mirror.yaml');
    const [r] = m.routes;
    expect(r && reasons(r, 'Accepted')).toEqual(['UnsupportedValue']);
    expect(m.rules).toEqual([]);
  });

  it('reports a Gateway without an address as not Programmed', () => {
    const m = model('httproute-simple-same-namespace.yaml', (o) =>
      o.map((x) =>
        x.kind === 'Gateway' && x.metadata.name === 'same-namespace'
          ? { ...x, metadata: { ...x.metadata, name: 'no-address' } }
          : x,
      ),
    );
    expect(gateway(m, 'no-address').conditions[1]?.reason).toBe('AddressNotAssigned');
  });
});

describe('resolveGateways: precedence', () => {
  const paths = (g: ResolvedGateway) =>
    g.frontends[0]?.entries.map((e) => `${e.path.type} ${e.path.value}`);

  it('orders Exact before the longest prefix (HTTPRoutePathMatchOrder)', () => {
    const g = gateway(model('httproute-path-match-order.yaml'), 'same-namespace');
    expect(paths(g)).toEqual([
      'Exact /match/exact/one',
      'Exact /match/exact',
      'Exact /match',
      'PathPrefix /match/prefix/one',
      'PathPrefix /match/prefix',
      'PathPrefix /match',
    ]);
  });

  it('orders more header matches first, then rule order (HTTPRouteHeaderMatching)', () => {
    const g = gateway(model('httproute-header-matching.yaml'), 'same-namespace');
    const heads = g.frontends[0]?.entries.map((e) =>
      e.headers.map((h) => `${h.name}=${h.value}`).join('&'),
    );
    expect(heads?.[0]).toBe('version=two&color=orange');
    expect(heads?.slice(1)).toEqual([
      'version=one',
      'version=two',
      'color=blue',
      'color=green',
      'color=red',
      'color=yellow',
    ]);
  });

  it('orders exact hostnames before wildcards (HTTPRouteListenerHostnameMatching)', () => {
    const g = gateway(
      model('httproute-listener-hostname-matching.yaml'),
      'httproute-listener-hostname-matching',
    );
    const hosts = g.frontends[0]?.entries.map((e) => `${e.hostname}>${e.rule.backends[0]?.name}`);
    expect(hosts).toEqual([
      'bar.com>infra-backend-v1',
      'foo.bar.com>infra-backend-v2',
      '*.bar.com>infra-backend-v3',
      '*.foo.com>infra-backend-v3',
    ]);
  });

  it('maps gRPC service/method to HTTP/2 paths (GRPCExactMethodMatching)', () => {
    const g = gateway(model('grpcroute-exact-method-matching.yaml'), 'same-namespace');
    expect(paths(g)).toEqual([
      'Exact /gateway_api_conformance.echo_basic.grpcecho.GrpcEcho/EchoTwo',
      'Exact /gateway_api_conformance.echo_basic.grpcecho.GrpcEcho/Echo',
    ]);
    expect(g.frontends[0]?.entries[0]?.rule.kind).toBe('GRPCRoute');
  });

  it('shifts bind ports by the port offset', () => {
    const m = resolveGateways({ ...inputsOf([...load('base/manifests.yaml')]), portOffset: 10000 });
    expect(gateway(m, 'same-namespace').frontends.map((f) => [f.port, f.bindPort])).toEqual([
      [80, 10080],
    ]);
  });
});
