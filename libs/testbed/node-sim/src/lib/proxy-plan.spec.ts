import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { backendsFor, planProxy } from './proxy-plan.js';

const svc = (name: string, spec: NonNullable<V1Service['spec']>): V1Service => ({
  metadata: { name, namespace: 'ns' },
  spec,
});
const slice = (
  service: string,
  port: { name?: string; port: number },
  endpoints: { ip: string; ready?: boolean; serving?: boolean; terminating?: boolean }[],
): V1EndpointSlice => ({
  addressType: 'IPv4',
  metadata: { namespace: 'ns', labels: { 'kubernetes.io/service-name': service } },
  ports: [{ ...port, protocol: 'TCP' }],
  endpoints: endpoints.map(({ ip, ...conditions }) => ({ addresses: [ip], conditions })),
});

describe('proxy plan', () => {
  const web = svc('web', {
    type: 'NodePort',
    clusterIP: '10.96.0.7',
    ports: [{ name: 'http', port: 80, nodePort: 30080 }],
  });

  it('forwards to ready, non-terminating endpoints of the named port only', () => {
    const slices = [
      slice('web', { name: 'http', port: 3000 }, [
        { ip: '127.0.10.2', ready: true, serving: true, terminating: false },
        { ip: '127.0.10.1' },
        { ip: '127.0.10.3', ready: false, serving: true, terminating: true },
        { ip: '127.0.10.4', ready: false, serving: false, terminating: false },
      ]),
      slice('web', { name: 'metrics', port: 9000 }, [{ ip: '127.0.10.9', ready: true }]),
      slice('other', { name: 'http', port: 3000 }, [{ ip: '127.0.10.8', ready: true }]),
    ];
    expect(backendsFor(web, 'http', slices)).toEqual([
      { ip: '127.0.10.1', port: 3000 },
      { ip: '127.0.10.2', port: 3000 },
    ]);
  });

  it('falls back to serving terminating endpoints when none is ready', () => {
    const slices = [
      slice('web', { name: 'http', port: 3000 }, [
        { ip: '127.0.10.3', ready: false, serving: true, terminating: true },
        { ip: '127.0.10.5', ready: false, serving: false, terminating: true },
      ]),
    ];
    expect(backendsFor(web, 'http', slices)).toEqual([{ ip: '127.0.10.3', port: 3000 }]);
  });

  it('listens on node ports, loopback cluster IPs and LoadBalancer ports; the node port wins a clash', () => {
    const rules = planProxy(
      [
        web,
        svc('loop', { clusterIP: '127.96.0.5', ports: [{ name: 'http', port: 8080 }] }),
        svc('headless', { clusterIP: 'None', ports: [{ port: 80 }] }),
        svc('udp', { type: 'NodePort', ports: [{ port: 53, protocol: 'UDP', nodePort: 30053 }] }),
        svc('lb', {
          type: 'LoadBalancer',
          clusterIP: '10.96.0.8',
          ports: [{ name: 'a', port: 30080, nodePort: 31000 }],
        }),
      ],
      [],
      '127.0.20.1',
    );
    expect(rules.map((r) => `${r.service} ${r.via} ${r.key}`).sort()).toEqual([
      'ns/lb:a nodePort 127.0.20.1:31000',
      'ns/loop:http clusterIP 127.96.0.5:8080',
      'ns/web:http nodePort 127.0.20.1:30080',
    ]);
    expect(rules.every((r) => r.backends.length === 0)).toBe(true);
  });

  it('gives each Service the endpoints of its own slices only (grouped once per pass)', () => {
    const api = svc('api', {
      type: 'NodePort',
      ports: [{ name: 'http', port: 80, nodePort: 30081 }],
    });
    const other = { ...web, metadata: { name: 'web', namespace: 'elsewhere' } };
    const slices = [
      slice('web', { name: 'http', port: 3000 }, [{ ip: '127.0.10.1' }]),
      slice('api', { name: 'http', port: 4000 }, [{ ip: '127.0.10.2' }]),
      slice('api', { name: 'http', port: 4000 }, [{ ip: '127.0.10.3' }]),
    ];
    const rules = planProxy(
      [
        web,
        api,
        { ...other, spec: { ...web.spec!, ports: [{ name: 'http', port: 80, nodePort: 30082 }] } },
      ],
      slices,
      '127.0.20.1',
    );
    const by = Object.fromEntries(
      rules.map((r) => [r.service, r.backends.map((b) => `${b.ip}:${b.port}`)]),
    );
    expect(by).toEqual({
      'ns/web:http': ['127.0.10.1:3000'],
      'ns/api:http': ['127.0.10.2:4000', '127.0.10.3:4000'],
      'elsewhere/web:http': [],
    });
  });
});
