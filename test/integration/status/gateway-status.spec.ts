import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeSim, KubeObject } from '#testbed/kube-sim';
import { gatewayModelOf, gatewayStatusWrites, KubeGatewayStatusApi } from '#status';
import { CONTROLLER, G, startGatewaySim } from './gateway-sim.js';

describe('Gateway API status through the real client against kube-sim', () => {
  let sim: KubeSim;
  let api: KubeGatewayStatusApi;

  beforeAll(async () => {
    const started = await startGatewaySim();
    sim = started.sim;
    const kc = started.kc;
    api = new KubeGatewayStatusApi(kc);
  });
  afterAll(async () => {
    await sim.stop();
  });

  const get = async (path: string) =>
    (await fetch(sim.url + path)).json() as Promise<KubeObject & { status?: unknown }>;

  it('writes GatewayClass, Gateway and HTTPRoute status on their /status subresources, leaving spec alone', async () => {
    await sim.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'infra' } },
      {
        apiVersion: G,
        kind: 'GatewayClass',
        metadata: { name: 'c' },
        spec: { controllerName: CONTROLLER },
      },
      {
        apiVersion: G,
        kind: 'Gateway',
        metadata: { namespace: 'infra', name: 'gw' },
        spec: { gatewayClassName: 'c', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
      },
      {
        apiVersion: G,
        kind: 'HTTPRoute',
        metadata: { namespace: 'infra', name: 'r' },
        spec: {
          parentRefs: [{ name: 'gw' }],
          rules: [{ backendRefs: [{ name: 'missing', port: 80 }] }],
        },
      },
    ] as KubeObject[]);
    const read = async () => ({
      classes: [await get('/apis/gateway.networking.k8s.io/v1/gatewayclasses/c')],
      gateways: [await get('/apis/gateway.networking.k8s.io/v1/namespaces/infra/gateways/gw')],
      routes: [await get('/apis/gateway.networking.k8s.io/v1/namespaces/infra/httproutes/r')],
    });
    const before = await read();
    const lists: Record<string, readonly object[]> = {
      gatewayclasses: before.classes,
      gateways: before.gateways,
      httproutes: before.routes,
    };
    const extra = { gateway_addresses: { 'infra/gw': '127.0.0.9' } };
    const model = gatewayModelOf((w) => lists[w] ?? [], Object.keys(lists), extra);
    const objects = {
      gatewayClasses: before.classes,
      gateways: before.gateways,
      httpRoutes: before.routes,
      grpcRoutes: [],
    };
    const writes = gatewayStatusWrites(model, objects, '2026-01-01T00:00:00Z');
    expect(writes.map((w) => w.kind)).toEqual(['GatewayClass', 'Gateway', 'HTTPRoute']);
    for (const w of writes) await api.patchStatus(w.kind, w.namespace, w.name, w.status);

    const after = await read();
    const gw = after.gateways[0] as unknown as {
      spec: unknown;
      status: { addresses: unknown; listeners: { attachedRoutes: number }[] };
    };
    expect(gw.spec).toEqual((before.gateways[0] as unknown as { spec: unknown }).spec);
    expect(gw.status.addresses).toEqual([{ type: 'IPAddress', value: '127.0.0.9' }]);
    expect(gw.status.listeners[0]?.attachedRoutes).toBe(1);
    const route = after.routes[0] as {
      status: { parents: { conditions: { type: string; reason: string }[] }[] };
    };
    expect(route.status.parents[0]?.conditions.map((c) => `${c.type}=${c.reason}`)).toEqual([
      'Accepted=Accepted',
      'ResolvedRefs=BackendNotFound',
    ]);
    // read back, the same model asks for no further write
    const again = gatewayStatusWrites(
      model,
      {
        gatewayClasses: after.classes,
        gateways: after.gateways,
        httpRoutes: after.routes,
        grpcRoutes: [],
      },
      '2026-02-02T00:00:00Z',
    );
    expect(again).toEqual([]);
  });
});
