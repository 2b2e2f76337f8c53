import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { grpcMatch } from './matches.js';
import { resolveGateways } from './resolve.js';
import type { GatewayModel, ResolvedGateway } from './types.js';

// GRPCRoute through the same resolver as HTTPRoute: the upstream GRPCRoute manifests, plus edits
// of them for the failure reasons (the upstream suite has no GRPCRoute test for those).
const DIR = fileURLToPath(new URL('../../../../../test/conformance/gateway-api/', import.meta.url));
const CONTROLLER = 'haproxy-haptic.org/gateway-controller';

type Obj = { kind: string; metadata: { name: string; namespace?: string }; spec?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

const load = (file: string): Obj[] =>
  parseAllDocuments(readFileSync(join(DIR, file), 'utf8').replaceAll('{GATEWAY_CLASS_NAME}', 'h'))
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null && typeof o.kind === 'string')
    .map((o) => ({ ...o, metadata: { generation: 1, ...o.metadata } }));

function resolve(test: string, edit: (objects: Obj[]) => void = () => undefined): GatewayModel {
  const objects = [...load('base/manifests.yaml'), ...load(`tests/${test}`)];
  edit(objects);
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  return resolveGateways({
    controllerName: CONTROLLER,
    gatewayClasses: [
      { kind: 'GatewayClass', metadata: { name: 'h' }, spec: { controllerName: CONTROLLER } },
    ],
    gateways: of('Gateway'),
    httpRoutes: of('HTTPRoute'),
    grpcRoutes: of('GRPCRoute'),
    referenceGrants: of('ReferenceGrant'),
    services: of('Service'),
    secrets: [],
    namespaces: of('Namespace'),
    addressOf: () => '127.80.0.1',
  });
}

const find = <T extends { name: string }>(list: readonly T[], name: string): T => {
  const x = list.find((o) => o.name === name);
  if (!x) throw new Error(`no ${name}`);
  return x;
};
const conditions = (m: GatewayModel, route: string) =>
  find(m.routes, route).parents.map((p) =>
    Object.fromEntries(p.conditions.map((c) => [c.type, c.reason])),
  );
const entries = (g: ResolvedGateway) =>
  (g.frontends[0]?.entries ?? []).map(
    (e) =>
      `${e.hostname} ${e.path.type} ${e.path.value} [${e.headers.map((h) => `${h.name}=${h.value}`).join(',')}] > ${e.rule.backends.map((b) => b.name).join('+')}`,
  );
function route(objects: Obj[], name: string): Obj {
  const o = objects.find((x) => x.kind.endsWith('Route') && x.metadata.name === name);
  if (!o) throw new Error(`no route ${name}`);
  return o;
}

describe('resolveGateways: GRPCRoute', () => {
  it('attaches by sectionName and orders exact listener hostnames first (GRPCRouteListenerHostnameMatching)', () => {
    const m = resolve('grpcroute-listener-hostname-matching.yaml');
    const g = find(m.gateways, 'grpcroute-listener-hostname-matching');
    expect(g.listeners.map((l) => [l.name, l.attachedRoutes])).toEqual([
      ['listener-1', 1],
      ['listener-2', 1],
      ['listener-3', 1],
      ['listener-4', 1],
    ]);
    for (const r of ['backend-v1', 'backend-v2'])
      expect(conditions(m, r)).toEqual([{ Accepted: 'Accepted', ResolvedRefs: 'ResolvedRefs' }]);
    expect(conditions(m, 'backend-v3')).toHaveLength(2);
    expect(entries(g)).toEqual([
      'bar.com PathPrefix / [] > grpc-infra-backend-v1',
      'foo.bar.com PathPrefix / [] > grpc-infra-backend-v2',
      '*.bar.com PathPrefix / [] > grpc-infra-backend-v3',
      '*.foo.com PathPrefix / [] > grpc-infra-backend-v3',
    ]);
  });

  it('tries the match with more header conditions first, then rule order (GRPCRouteHeaderMatching)', () => {
    const g = find(resolve('grpcroute-header-matching.yaml').gateways, 'same-namespace');
    expect(entries(g)).toEqual([
      '* PathPrefix / [version=two,color=orange] > grpc-infra-backend-v1',
      '* PathPrefix / [version=one] > grpc-infra-backend-v1',
      '* PathPrefix / [version=two] > grpc-infra-backend-v2',
      '* PathPrefix / [color=blue] > grpc-infra-backend-v1',
      '* PathPrefix / [color=green] > grpc-infra-backend-v1',
      '* PathPrefix / [color=red] > grpc-infra-backend-v2',
      '* PathPrefix / [color=yellow] > grpc-infra-backend-v2',
    ]);
  });

  it('keeps weights 70/30 and drops the weight-0 backend (GRPCRouteWeight)', () => {
    const m = resolve('grpcroute-weight.yaml');
    const rule = m.rules.find((r) => r.route.name === 'weighted-backends');
    expect(rule?.kind).toBe('GRPCRoute');
    expect(rule?.backends.map((b) => [b.name, b.weight, b.serverWeight])).toEqual([
      ['grpc-infra-backend-v1', 70, 256],
      ['grpc-infra-backend-v2', 30, 110],
    ]);
  });

  it('reports a missing Service as BackendNotFound, the route still Accepted', () => {
    const m = resolve('grpcroute-exact-method-matching.yaml', (o) => {
      route(o, 'exact-matching').spec.rules[1].backendRefs[0].name = 'does-not-exist';
    });
    expect(conditions(m, 'exact-matching')).toEqual([
      { Accepted: 'Accepted', ResolvedRefs: 'BackendNotFound' },
    ]);
    expect(m.rules.find((r) => r.id.endsWith('_1'))?.backends).toEqual([]);
  });

  it('refuses a GRPCRoute on a listener that admits only HTTPRoutes (NotAllowedByListeners)', () => {
    const m = resolve('grpcroute-exact-method-matching.yaml', (o) => {
      const gw = o.find((x) => x.kind === 'Gateway' && x.metadata.name === 'same-namespace');
      gw!.spec.listeners[0].allowedRoutes.kinds = [{ kind: 'HTTPRoute' }];
    });
    expect(conditions(m, 'exact-matching')[0]?.['Accepted']).toBe('NotAllowedByListeners');
    expect(find(m.gateways, 'same-namespace').listeners[0]?.attachedRoutes).toBe(0);
    expect(m.rules.filter((r) => r.kind === 'GRPCRoute')).toEqual([]);
  });

  it('needs a ReferenceGrant from GRPCRoute: one from HTTPRoute does not grant it (RefNotPermitted)', () => {
    const crossNs = (grantKind: string) =>
      resolve('httproute-reference-grant.yaml', (o) => {
        const grant = o.find((x) => x.kind === 'ReferenceGrant');
        grant!.spec.from[0].kind = grantKind;
        const r = route(o, 'reference-grant');
        r.kind = 'GRPCRoute';
      });
    expect(conditions(crossNs('HTTPRoute'), 'reference-grant')[0]?.['ResolvedRefs']).toBe(
      'RefNotPermitted',
    );
    expect(conditions(crossNs('GRPCRoute'), 'reference-grant')[0]?.['ResolvedRefs']).toBe(
      'ResolvedRefs',
    );
  });

  it('refuses a filter GRPCRoute support does not include (UnsupportedValue)', () => {
    const m = resolve('grpcroute-exact-method-matching.yaml', (o) => {
      route(o, 'exact-matching').spec.rules[0].filters = [
        {
          type: 'RequestMirror',
          requestMirror: { backendRef: { name: 'grpc-infra-backend-v2', port: 8080 } },
        },
      ];
    });
    expect(conditions(m, 'exact-matching')[0]?.['Accepted']).toBe('UnsupportedValue');
  });
});

describe('grpcMatch: service and method as the HTTP/2 :path', () => {
  it('maps Exact service+method, service only, method only and RegularExpression', () => {
    expect(grpcMatch({ method: { service: 's.S', method: 'M' } }).path).toEqual({
      type: 'Exact',
      value: '/s.S/M',
    });
    expect(grpcMatch({ method: { service: 's.S' } }).path).toEqual({
      type: 'PathPrefix',
      value: '/s.S',
    });
    expect(grpcMatch({ method: { method: 'M.x' } }).path).toEqual({
      type: 'RegularExpression',
      value: '^/[^/]+/M\\.x$',
    });
    expect(
      grpcMatch({ method: { type: 'RegularExpression', service: 's\\..*', method: 'Echo.*' } })
        .path,
    ).toEqual({
      type: 'RegularExpression',
      value: '^/s\\..*/Echo.*$',
    });
    expect(grpcMatch({}).path).toEqual({ type: 'PathPrefix', value: '/' });
  });
});
