import { describe, expect, it } from 'vitest';
import { assignServicePorts, gatewayServiceName, parsePortRange } from './service-ports.js';
import { gatewayModelOf } from './snapshot.js';
import { controllerLabel, gatewayServiceWrites } from './service-writes.js';

const CONTROLLER = 'haproxy-haptic.org/gateway-controller';
const G = 'gateway.networking.k8s.io/v1';
const range = parsePortRange('20000-20009');

describe('assignServicePorts', () => {
  it('hands out pod ports by Gateway namespace/name, then listener port', () => {
    const ports = assignServicePorts(
      range,
      new Map([
        ['infra/b', [80]],
        ['infra/a', [8080, 80, 80]],
        ['apps/z', [443]],
      ]),
    );
    expect([...ports].map(([k, m]) => [k, [...m]])).toEqual([
      ['apps/z', [[443, 20000]]],
      [
        'infra/a',
        [
          [80, 20001],
          [8080, 20002],
        ],
      ],
      ['infra/b', [[80, 20003]]],
    ]);
  });

  it('gives the same ports whatever order the Gateways come in', () => {
    const a = new Map([
      ['x/one', [80, 443]],
      ['x/two', [80]],
    ]);
    const b = new Map([...a].reverse());
    expect([...assignServicePorts(range, b)]).toEqual([...assignServicePorts(range, a)]);
  });

  it('refuses a range too small for the listeners, and a malformed range, naming the field', () => {
    expect(() =>
      assignServicePorts(parsePortRange('20000-20001'), new Map([['a/b', [1, 2, 3]]])),
    ).toThrow(/gateway_service_port_range 20000-20001 has too few ports/);
    expect(() => parsePortRange('20000')).toThrow(/gateway_service_port_range "20000"/);
    expect(() => parsePortRange('30000-20000')).toThrow(/gateway_service_port_range/);
    expect(() => parsePortRange('1-70000')).toThrow(/within 1-65535/);
  });

  it('names a Service as a DNS label of at most 63 characters, by Gateway namespace and name', () => {
    expect(gatewayServiceName('infra', 'gw')).toBe('gw-infra-gw');
    expect(gatewayServiceName('infra', 'my.gw')).toBe('gw-infra-my-gw');
    const long = gatewayServiceName('infra', 'g'.repeat(70));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    expect(gatewayServiceName('infra', 'g'.repeat(70))).toBe(long);
    expect(gatewayServiceName('infra', 'g'.repeat(71))).not.toBe(long);
  });
});

const objects = (gateways: object[], services: object[] = []) => ({
  gatewayclasses: [
    {
      kind: 'GatewayClass',
      metadata: { name: 'c', generation: 1 },
      spec: { controllerName: CONTROLLER },
    },
  ],
  gateways,
  services,
});
const gw = (name: string, ports: number[]) => ({
  apiVersion: G,
  kind: 'Gateway',
  metadata: { namespace: 'infra', name, generation: 1 },
  spec: {
    gatewayClassName: 'c',
    listeners: ports.map((port) => ({ name: `l${port}`, port, protocol: 'HTTP' })),
  },
});
const extra = { gateway_service_type: 'LoadBalancer', gateway_service_port_range: '20000-20009' };
const modelOf = (lists: Record<string, readonly object[]>, x: Record<string, unknown> = extra) =>
  gatewayModelOf((w) => lists[w] ?? [], Object.keys(lists), x);
const selector = { 'app.kubernetes.io/component': 'loadbalancer' };

describe('Service per Gateway in the model and its writes', () => {
  it('binds each Gateway on its pod ports and reports the Service address in status', () => {
    const svc = {
      metadata: {
        namespace: 'haptic',
        name: 'gw-infra-a',
        labels: {
          'app.kubernetes.io/managed-by': 'haptic',
          'haproxy-haptic.org/gateway-controller': controllerLabel(CONTROLLER),
        },
        annotations: { 'haproxy-haptic.org/gateway': 'infra/a' },
      },
      spec: { clusterIP: '10.96.0.7' },
      status: { loadBalancer: { ingress: [{ hostname: 'lb.example.net' }] } },
    };
    const m = modelOf(objects([gw('b', [80]), gw('a', [80, 443])], [svc]));
    const a = m.gateways.find((g) => g.name === 'a');
    const b = m.gateways.find((g) => g.name === 'b');
    expect(a?.frontends.map((f) => [f.port, f.bindPort])).toEqual([
      [80, 20000],
      [443, 20001],
    ]);
    expect(b?.frontends.map((f) => [f.port, f.bindPort])).toEqual([[80, 20002]]);
    expect(a?.service).toEqual({
      name: 'gw-infra-a',
      type: 'LoadBalancer',
      ports: [
        { name: 'port-80', port: 80, targetPort: 20000 },
        { name: 'port-443', port: 443, targetPort: 20001 },
      ],
    });
    expect(a?.address).toBe('lb.example.net');
    expect(a?.conditions.find((c) => c.type === 'Programmed')?.status).toBe('True');
    expect(b?.address).toBeUndefined();
    expect(b?.conditions.find((c) => c.type === 'Programmed')?.reason).toBe('AddressNotAssigned');
  });

  it('refuses an unknown Service type naming the field', () => {
    expect(() => modelOf(objects([gw('a', [80])]), { gateway_service_type: 'External' })).toThrow(
      /extraContext.gateway_service_type "External"/,
    );
  });

  it('creates the missing Service, then asks for nothing once it matches, and patches a drift', () => {
    const gateways = [gw('a', [80])];
    const m = modelOf(objects(gateways));
    const [create, ...more] = gatewayServiceWrites(m, 'haptic', [], selector);
    expect(more).toEqual([]);
    expect(create?.op).toBe('create');
    if (create?.op !== 'create') throw new Error('expected a create');
    expect(create.service.metadata).toEqual({
      namespace: 'haptic',
      name: 'gw-infra-a',
      labels: {
        'app.kubernetes.io/managed-by': 'haptic',
        'haproxy-haptic.org/gateway-controller': controllerLabel(CONTROLLER),
      },
      annotations: { 'haproxy-haptic.org/gateway': 'infra/a' },
    });
    expect(create.service.spec).toEqual({
      type: 'LoadBalancer',
      selector,
      ports: [{ name: 'port-80', port: 80, targetPort: 20000, protocol: 'TCP' }],
    });
    // as the API server returns it: defaults and allocations added
    const stored = {
      ...create.service,
      metadata: { ...create.service.metadata, uid: 's1', resourceVersion: '9' },
      spec: {
        ...create.service.spec,
        clusterIP: '10.96.0.9',
        ports: [{ ...create.service.spec.ports[0], nodePort: 31000 }],
      },
    };
    expect(gatewayServiceWrites(m, 'haptic', [stored], selector)).toEqual([]);
    const moved = modelOf(objects([gw('a', [80]), gw('0', [80])]));
    const writes = gatewayServiceWrites(moved, 'haptic', [stored], {
      app: 'haproxy',
    });
    expect(writes.map((w) => w.op).sort()).toEqual(['create', 'patch']);
    expect(writes.find((w) => w.op === 'patch')).toMatchObject({
      op: 'patch',
      staleSelector: ['app.kubernetes.io/component'],
      service: { spec: { ports: [{ port: 80, targetPort: 20001 }] } },
    });
  });

  it("deletes our Service whose Gateway is gone, never another controller's", () => {
    const ours = {
      metadata: {
        namespace: 'haptic',
        name: 'gw-infra-gone',
        labels: {
          'app.kubernetes.io/managed-by': 'haptic',
          'haproxy-haptic.org/gateway-controller': controllerLabel(CONTROLLER),
        },
      },
    };
    const theirs = {
      metadata: {
        namespace: 'haptic',
        name: 'gw-infra-other',
        labels: {
          'app.kubernetes.io/managed-by': 'haptic',
          'haproxy-haptic.org/gateway-controller': controllerLabel('example.com/other'),
        },
      },
    };
    const m = modelOf(objects([]));
    expect(
      gatewayServiceWrites(m, 'haptic', [ours, theirs, { metadata: { name: 'x' } }], selector),
    ).toEqual([{ op: 'delete', namespace: 'haptic', name: 'gw-infra-gone' }]);
    // Service mode switched off: the Services go too
    const off = modelOf(objects([gw('gone', [80])]), {});
    expect(gatewayServiceWrites(off, 'haptic', [ours], selector)).toEqual([
      { op: 'delete', namespace: 'haptic', name: 'gw-infra-gone' },
    ]);
  });
});
