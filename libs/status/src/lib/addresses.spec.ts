import { describe, expect, it } from 'vitest';
import { fixedAddresses, sameEntries, serviceAddresses } from './addresses.js';

const nodes = [
  { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } },
  {
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'ExternalIP', address: '203.0.113.1' },
      ],
    },
  },
  { status: { addresses: [{ type: 'Hostname', address: 'n3' }] } },
];

describe('published addresses', () => {
  it('LoadBalancer: the load-balancer ingress and external IPs', () => {
    const svc = {
      spec: { type: 'LoadBalancer', externalIPs: ['198.51.100.7'] },
      status: { loadBalancer: { ingress: [{ hostname: 'lb.example' }, { ip: '192.0.2.1' }] } },
    };
    expect(serviceAddresses(svc, nodes)).toEqual([
      { ip: '192.0.2.1' },
      { ip: '198.51.100.7' },
      { hostname: 'lb.example' },
    ]);
  });

  it("NodePort: each Node's ExternalIP, else InternalIP; a Node with neither adds nothing", () => {
    expect(serviceAddresses({ spec: { type: 'NodePort' } }, nodes)).toEqual([
      { ip: '10.0.0.2' },
      { ip: '203.0.113.1' },
    ]);
  });

  it('ClusterIP: the cluster IP unless external IPs are set; headless: nothing', () => {
    expect(serviceAddresses({ spec: { clusterIP: '10.96.0.10' } }, [])).toEqual([
      { ip: '10.96.0.10' },
    ]);
    expect(serviceAddresses({ spec: { clusterIP: 'None' } }, [])).toEqual([]);
    expect(
      serviceAddresses({ spec: { clusterIP: '10.96.0.10', externalIPs: ['192.0.2.9'] } }, []),
    ).toEqual([{ ip: '192.0.2.9' }]);
  });

  it('fixed addresses: IPs as ip, names as hostname, sorted, once each', () => {
    expect(
      fixedAddresses({ addresses: ['lb.example', '2001:db8::1', '192.0.2.1', '192.0.2.1'] }),
    ).toEqual([{ ip: '192.0.2.1' }, { ip: '2001:db8::1' }, { hostname: 'lb.example' }]);
  });

  it('compares entry lists without regard to order', () => {
    expect(sameEntries([{ ip: 'a' }, { ip: 'b' }], [{ ip: 'b' }, { ip: 'a' }])).toBe(true);
    expect(sameEntries([{ ip: 'a' }], [{ hostname: 'a' }])).toBe(false);
  });
});
