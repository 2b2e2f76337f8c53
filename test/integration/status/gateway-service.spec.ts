import { SchedulerRegistry } from '@nestjs/schedule';
import { Counter } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeSim, KubeObject } from '#testbed/kube-sim';
import { GatewayStatusWriter, KubeGatewayStatusApi, type GatewayStatusSource } from '#status';
import { CONTROLLER, G, startGatewaySim } from './gateway-sim.js';

const SELECTOR = { 'app.kubernetes.io/component': 'loadbalancer' };

interface Svc {
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    type: string;
    clusterIP: string;
    selector: Record<string, string>;
    ports: { name: string; port: number; targetPort: number }[];
  };
}

/**
 * Service per Gateway, through the leader's GatewayStatusWriter and the real client against
 * kube-sim: the Service appears beside the HAProxy pods (the config's namespace) with the
 * Gateway's pod ports, status.addresses names its cluster IP, a further pass writes nothing, and
 * the Service goes when its Gateway does.
 */
describe('Service per Gateway against kube-sim', () => {
  let sim: KubeSim;
  let writer: GatewayStatusWriter;
  let extra: Record<string, unknown> = {
    gateway_service_type: 'ClusterIP',
    gateway_service_port_range: '20000-20099',
  };
  let writes = 0;

  const get = async <T>(path: string) => (await fetch(sim.url + path)).json() as Promise<T>;
  const items = async (path: string) => (await get<{ items: object[] }>(path)).items;
  const pass = async () => {
    writer.startLeading();
    await writer.settled();
    await writer.stopLeading(new AbortController().signal);
  };
  const services = async () =>
    (await items('/api/v1/namespaces/haptic/services')) as unknown as Svc[];

  beforeAll(async () => {
    const started = await startGatewaySim();
    sim = started.sim;
    const kc = started.kc;
    const lists: Record<string, string> = {
      gatewayclasses: '/apis/gateway.networking.k8s.io/v1/gatewayclasses',
      gateways: '/apis/gateway.networking.k8s.io/v1/gateways',
      services: '/api/v1/services',
    };
    const source: GatewayStatusSource = {
      async snapshot() {
        const read = Object.fromEntries(
          await Promise.all(Object.entries(lists).map(async ([k, p]) => [k, await items(p)])),
        ) as Record<string, object[]>;
        return {
          list: (w: string) => read[w] ?? [],
          watched: Object.keys(lists),
          extra,
          podSelector: { matchLabels: SELECTOR },
        };
      },
    };
    const counter = new Counter({
      name: 'haptic_status_writes_total',
      help: 'test',
      labelNames: ['kind', 'result'],
      registers: [],
    });
    const api = new KubeGatewayStatusApi(kc);
    const counted = {
      patchStatus: (...a: Parameters<typeof api.patchStatus>) => {
        writes++;
        return api.patchStatus(...a);
      },
      writeService: (w: Parameters<typeof api.writeService>[0]) => {
        writes++;
        return api.writeService(w);
      },
    };
    const tracker = { onChange: () => () => undefined };
    writer = new GatewayStatusWriter(
      counted,
      source,
      { config: { namespace: 'haptic', name: 'c' }, identity: 'test', resyncMs: 60_000 },
      tracker as never,
      counter,
      new SchedulerRegistry(),
    );
    await sim.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'infra' } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'haptic' } },
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
        spec: {
          gatewayClassName: 'c',
          listeners: [
            { name: 'http', port: 80, protocol: 'HTTP' },
            { name: 'alt', port: 8080, protocol: 'HTTP' },
          ],
        },
      },
    ] as KubeObject[]);
  });
  afterAll(async () => {
    await sim.stop();
  });

  const gatewayStatus = async () =>
    (
      await get<{
        status?: { addresses?: unknown; conditions?: { type: string; status: string }[] };
      }>('/apis/gateway.networking.k8s.io/v1/namespaces/infra/gateways/gw')
    ).status;

  it('creates the Service, then reports its address, and writes nothing more once all match', async () => {
    await pass(); // creates the Service; no address yet in this snapshot
    const [svc, ...others] = await services();
    expect(others).toEqual([]);
    expect(svc?.metadata.name).toBe('gw-infra-gw');
    expect(svc?.metadata.annotations?.['haproxy-haptic.org/gateway']).toBe('infra/gw');
    expect(svc?.spec.type).toBe('ClusterIP');
    expect(svc?.spec.selector).toEqual(SELECTOR);
    expect(svc?.spec.ports.map((p) => [p.name, p.port, p.targetPort])).toEqual([
      ['port-80', 80, 20000],
      ['port-8080', 8080, 20001],
    ]);
    expect(svc?.spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect((await gatewayStatus())?.conditions?.find((c) => c.type === 'Programmed')?.status).toBe(
      'False',
    );

    await pass(); // the Service is in the snapshot now: its cluster IP is the Gateway's address
    const status = await gatewayStatus();
    expect(status?.addresses).toEqual([{ type: 'IPAddress', value: svc?.spec.clusterIP }]);
    expect(status?.conditions?.find((c) => c.type === 'Programmed')?.status).toBe('True');

    const before = writes;
    await pass();
    expect(writes).toBe(before);
  });

  it('deletes the Service when Service mode is switched off, and when its Gateway is deleted', async () => {
    extra = {};
    await pass();
    expect(await services()).toEqual([]);

    extra = { gateway_service_type: 'ClusterIP', gateway_service_port_range: '20000-20099' };
    await pass();
    expect((await services()).map((s) => s.metadata.name)).toEqual(['gw-infra-gw']);
    const del = await fetch(
      `${sim.url}/apis/gateway.networking.k8s.io/v1/namespaces/infra/gateways/gw`,
      {
        method: 'DELETE',
      },
    );
    expect(del.ok).toBe(true);
    expect((await services()).map((s) => s.metadata.name)).toEqual(['gw-infra-gw']);
    await pass();
    expect(await services()).toEqual([]);
    const before = writes;
    await pass(); // nothing left to write
    expect(writes).toBe(before);
  });
});
