import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '#testbed/kube-sim';
import {
  assembleLibrary,
  echoApp,
  ECHO_SERVICE_PORT,
  repoRoot,
  send,
  Stack,
  waitFor,
} from '#testbed/stack';

// Service per Gateway with real traffic: two Gateways with the same listener port share the two
// HAProxy pods, each on its own pod port; the leader keeps a NodePort Service per Gateway (node-sim
// plays kube-proxy for its node port), status.addresses names the Service, and deleting a Gateway
// deletes its Service.
const CRDS = ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes', 'referencegrants'];
const G = 'gateway.networking.k8s.io/v1';
const CONTROLLER = 'haproxy-haptic.org/gateway-controller';
const NS = 'gw-svc';

const gateway = (name: string): KubeObject => ({
  apiVersion: G,
  kind: 'Gateway',
  metadata: { namespace: NS, name },
  spec: { gatewayClassName: 'haptic', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
});
const route = (gw: string, service: string): KubeObject => ({
  apiVersion: G,
  kind: 'HTTPRoute',
  metadata: { namespace: NS, name: gw },
  spec: {
    parentRefs: [{ name: gw }],
    rules: [{ backendRefs: [{ name: service, port: ECHO_SERVICE_PORT }] }],
  },
});

interface GatewayObject {
  status?: {
    addresses?: { type: string; value: string }[];
    conditions?: { type: string; status: string }[];
  };
}
interface ServiceObject {
  spec: { clusterIP: string; ports: { name: string; port: number; targetPort: number }[] };
}

describe('Service per Gateway: each Gateway its own Service onto its own pod ports', () => {
  let stack: Stack;

  beforeAll(async () => {
    const library = await assembleLibrary('gateway-api');
    const spec = library['spec'] as {
      templatingSettings: { extraContext: Record<string, unknown> };
    };
    spec.templatingSettings.extraContext = {
      ...spec.templatingSettings.extraContext,
      gateway_service_type: 'NodePort',
      gateway_service_port_range: '21000-21099',
    };
    stack = await Stack.start({
      fast: true,
      library,
      haproxyReplicas: 2,
      kubeSimManifests: CRDS.map((c) =>
        join(
          repoRoot(),
          'test/conformance/gateway-api/crds',
          `gateway.networking.k8s.io_${c}.yaml`,
        ),
      ),
    });
    await stack.apply([
      {
        apiVersion: G,
        kind: 'GatewayClass',
        metadata: { name: 'haptic' },
        spec: { controllerName: CONTROLLER },
      },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
    ] as KubeObject[]);
    await stack.apply([
      ...echoApp(NS, 'blue'),
      ...echoApp(NS, 'green'),
      gateway('a'),
      gateway('b'),
      route('a', 'blue'),
      route('b', 'green'),
    ]);
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const svcPath = (gw: string) =>
    `/api/v1/namespaces/${stack.topology.namespace}/services/gw-${NS}-${gw}`;
  const servedThrough = async (address: string, port: number) => {
    const r = await send({ address, port, host: 'any.example', timeoutMs: 2000 });
    return r.status === 200 ? (JSON.parse(r.body) as { service?: string }).service : undefined;
  };

  it('serves each Gateway through its Service, with the Service address in status', async () => {
    for (const [gw, backend, target] of [
      ['a', 'blue', 21000],
      ['b', 'green', 21001],
    ] as const) {
      const svc = await waitFor(
        `the Service of Gateway ${gw}`,
        () => stack.get<ServiceObject>(svcPath(gw)),
        120_000,
      );
      expect(svc.spec.ports.map((p) => [p.name, p.port, p.targetPort])).toEqual([
        ['port-80', 80, target],
      ]);
      const status = await waitFor(
        `Gateway ${gw} Programmed with the Service address`,
        async () => {
          const g = await stack.get<GatewayObject>(`/apis/${G}/namespaces/${NS}/gateways/${gw}`);
          const programmed = g?.status?.conditions?.find((c) => c.type === 'Programmed')?.status;
          return programmed === 'True' ? g?.status : undefined;
        },
        120_000,
      );
      expect(status.addresses).toEqual([{ type: 'IPAddress', value: svc.spec.clusterIP }]);
      const node = await stack.nodePortAddress(
        stack.topology.namespace,
        `gw-${NS}-${gw}`,
        'port-80',
      );
      await waitFor(
        `${backend} through the node port of Gateway ${gw}`,
        async () => ((await servedThrough(node.address, node.port)) === backend ? true : undefined),
        120_000,
      );
      // and through every HAProxy pod on the Gateway's own pod port
      for (const pod of await stack.haproxyPods())
        await waitFor(
          `${backend} through ${pod.name}:${target}`,
          async () => ((await servedThrough(pod.ip, target)) === backend ? true : undefined),
          60_000,
        );
    }
  }, 300_000);

  it('deletes the Service of a deleted Gateway and keeps the other', async () => {
    await stack.delete(`/apis/${G}/namespaces/${NS}/gateways/a`);
    await waitFor(
      'the Service of Gateway a gone',
      async () => ((await stack.get(svcPath('a'))) === undefined ? true : undefined),
      120_000,
    );
    expect(await stack.get(svcPath('b'))).toBeDefined();
  }, 180_000);
});
