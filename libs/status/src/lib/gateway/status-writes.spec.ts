import { describe, expect, it } from 'vitest';
import { resolveGateways } from './resolve.js';
import { gatewayStatusWrites } from './status-writes.js';
import type { GatewayInputs } from './types.js';

const CONTROLLER = 'example.org/gw';
const route = (status?: unknown) => ({
  metadata: { namespace: 'ns', name: 'r', generation: 2 },
  spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] },
  ...(status ? { status } : {}),
});
const inputs = (httpRoutes: object[]): GatewayInputs => ({
  controllerName: CONTROLLER,
  gatewayClasses: [
    { metadata: { name: 'c', generation: 1 }, spec: { controllerName: CONTROLLER } },
  ],
  gateways: [
    {
      metadata: { namespace: 'ns', name: 'gw', generation: 3 },
      spec: { gatewayClassName: 'c', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
    },
  ],
  httpRoutes,
  grpcRoutes: [],
  referenceGrants: [],
  services: [{ metadata: { namespace: 'ns', name: 'svc' }, spec: { ports: [{ port: 80 }] } }],
  secrets: [],
  namespaces: [],
  addressOf: () => '127.0.0.9',
});

function writes(httpRoutes: object[], now = '2026-01-01T00:00:00Z') {
  const i = inputs(httpRoutes);
  return gatewayStatusWrites(
    resolveGateways(i),
    { gatewayClasses: i.gatewayClasses, gateways: i.gateways, httpRoutes, grpcRoutes: [] },
    now,
  );
}

describe('gatewayStatusWrites', () => {
  it('writes class, gateway (addresses, listeners, attachedRoutes) and route parents with observedGeneration', () => {
    const w = writes([route()]);
    expect(w.map((x) => x.kind)).toEqual(['GatewayClass', 'Gateway', 'HTTPRoute']);
    const gw = w[1]?.status as { addresses: unknown; listeners: { attachedRoutes: number }[] };
    expect(gw.addresses).toEqual([{ type: 'IPAddress', value: '127.0.0.9' }]);
    expect(gw.listeners[0]?.attachedRoutes).toBe(1);
    const parents = (
      w[2]?.status as {
        parents: { controllerName: string; conditions: { observedGeneration: number }[] }[];
      }
    ).parents;
    expect(parents.map((p) => p.controllerName)).toEqual([CONTROLLER]);
    expect(parents[0]?.conditions.map((c) => c.observedGeneration)).toEqual([2, 2]);
  });

  it('writes nothing for a route whose status already says it, and keeps other controllers entries', () => {
    const first = writes([route()]);
    const other = { parentRef: { name: 'x' }, controllerName: 'other.org/c', conditions: [] };
    const mine = (first[2]?.status as { parents: object[] }).parents;
    const settled = route({ parents: [other, ...mine] });
    expect(writes([settled], '2026-02-02T00:00:00Z').filter((x) => x.kind === 'HTTPRoute')).toEqual(
      [],
    );
    const changed = { ...settled, metadata: { ...settled.metadata, generation: 3 } };
    const [w] = writes([changed], '2026-02-02T00:00:00Z').filter((x) => x.kind === 'HTTPRoute');
    const parents = (
      w?.status as {
        parents: { controllerName: string; conditions: { lastTransitionTime: string }[] }[];
      }
    ).parents;
    expect(parents.map((p) => p.controllerName)).toEqual(['other.org/c', CONTROLLER]);
    expect(parents[1]?.conditions[0]?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
  });

  it('removes our entry from a route that no longer names our Gateway', () => {
    const mine = (writes([route()])[2]?.status as { parents: object[] }).parents;
    const moved = { ...route({ parents: mine }), spec: { parentRefs: [{ name: 'elsewhere' }] } };
    const w = writes([moved]).filter((x) => x.kind === 'HTTPRoute');
    expect(w).toEqual([{ kind: 'HTTPRoute', namespace: 'ns', name: 'r', status: { parents: [] } }]);
  });
});
