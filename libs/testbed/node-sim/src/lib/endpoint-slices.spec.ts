import type { V1EndpointSlice, V1Pod, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { desiredSlices, MANAGED_BY, planSlices, type PodEndpoint } from './endpoint-slices.js';

const service: V1Service = {
  metadata: { name: 'echo', namespace: 'ns', uid: 'svc-1' },
  spec: {
    selector: { app: 'echo' },
    ports: [{ name: 'http', port: 80, targetPort: 'http' }],
  },
};

function endpoint(
  name: string,
  ip: string,
  state: Partial<PodEndpoint> = {},
  port = 3000,
): PodEndpoint {
  const pod: V1Pod = {
    metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels: { app: 'echo' } },
    spec: { containers: [{ name: 'c', ports: [{ name: 'http', containerPort: port }] }] },
  };
  return {
    pod,
    ip,
    ready: true,
    serving: true,
    terminating: false,
    nodeName: 'node-sim',
    ...state,
  };
}

describe('EndpointSlices', () => {
  it('lists selected pods with resolved ports, conditions, labels and owner', () => {
    const [slice] = desiredSlices(service, [
      endpoint('b', '127.0.10.2', { ready: false, serving: true, terminating: true }),
      endpoint('a', '127.0.10.1'),
      {
        ...endpoint('x', '127.0.10.9'),
        pod: { metadata: { name: 'x', namespace: 'ns', labels: { app: 'other' } } },
      },
    ]);
    expect(slice!.metadata!.labels).toEqual({
      'kubernetes.io/service-name': 'echo',
      'endpointslice.kubernetes.io/managed-by': MANAGED_BY,
    });
    expect(slice!.metadata!.ownerReferences![0]).toMatchObject({ kind: 'Service', uid: 'svc-1' });
    expect(slice!.ports).toEqual([{ name: 'http', port: 3000, protocol: 'TCP' }]);
    expect(slice!.endpoints.map((e) => [e.addresses[0], e.conditions])).toEqual([
      ['127.0.10.1', { ready: true, serving: true, terminating: false }],
      ['127.0.10.2', { ready: false, serving: true, terminating: true }],
    ]);
    expect(slice!.endpoints[0]!.targetRef).toMatchObject({ kind: 'Pod', name: 'a' });
  });

  it('splits pods whose named port resolves differently into separate slices', () => {
    const slices = desiredSlices(service, [
      endpoint('a', '127.0.10.1', {}, 3000),
      endpoint('b', '127.0.10.2', {}, 8080),
    ]);
    expect(slices.map((s) => s.ports![0]!.port).sort()).toEqual([3000, 8080]);
  });

  it('keeps an empty slice for a Service without pods, and publishes not-ready addresses when asked', () => {
    expect(desiredSlices(service, [])[0]!.endpoints).toEqual([]);
    const publish = { ...service, spec: { ...service.spec, publishNotReadyAddresses: true } };
    const [slice] = desiredSlices(publish, [
      endpoint('a', '127.0.10.1', { ready: false, serving: false }),
    ]);
    expect(slice!.endpoints[0]!.conditions).toMatchObject({ ready: true, serving: true });
  });

  it('plans create, update and delete against what exists', () => {
    const want = desiredSlices(service, [endpoint('a', '127.0.10.1')]);
    expect(planSlices(service, [endpoint('a', '127.0.10.1')], []).create).toHaveLength(1);
    const existing: V1EndpointSlice[] = [
      { ...want[0]!, metadata: { ...want[0]!.metadata, resourceVersion: '7' } },
    ];
    expect(planSlices(service, [endpoint('a', '127.0.10.1')], existing)).toEqual({
      create: [],
      update: [],
      delete: [],
    });
    const update = planSlices(
      service,
      [endpoint('a', '127.0.10.1', { ready: false })],
      existing,
    ).update;
    expect(update).toHaveLength(1);
    expect(update[0]!.metadata!.resourceVersion).toBe('7');
    const noSelector = { ...service, spec: { ...service.spec, selector: {} } };
    expect(planSlices(noSelector, [], existing).delete).toHaveLength(1);
  });
});
