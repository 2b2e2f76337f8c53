import { describe, expect, it } from 'vitest';
import { ServiceUsage } from './service-alloc.js';

const svc = (name: string, clusterIP: string, nodePort?: number) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'default', name },
  spec: { clusterIP, ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] },
});

describe('ServiceUsage', () => {
  it('holds what every Service holds, replaced on update and released on delete', () => {
    const u = new ServiceUsage();
    u.set('default/a', svc('a', '10.96.0.1', 30001));
    u.set('default/b', svc('b', '10.96.0.2'));
    expect(u.others().ips.has('10.96.0.1')).toBe(true);
    expect(u.others().nodePorts.has('TCP/30001')).toBe(true);
    u.set('default/a', svc('a', '10.96.0.3'));
    expect(u.others().ips.has('10.96.0.1')).toBe(false);
    expect(u.others().nodePorts.has('TCP/30001')).toBe(false);
    expect(u.others().ips.has('10.96.0.3')).toBe(true);
    u.delete('default/b');
    expect(u.others().ips.has('10.96.0.2')).toBe(false);
  });

  it('leaves out the Service being written, but not another holding the same value', () => {
    const u = new ServiceUsage();
    u.set('default/a', svc('a', '10.96.0.1'));
    expect(u.others({ namespace: 'default', name: 'a' }).ips.has('10.96.0.1')).toBe(false);
    expect(u.others({ namespace: 'default', name: 'x' }).ips.has('10.96.0.1')).toBe(true);
    // a conflict stored anyway (a restore) is still seen by the other holder
    u.set('default/b', svc('b', '10.96.0.1'));
    expect(u.others({ namespace: 'default', name: 'a' }).ips.has('10.96.0.1')).toBe(true);
  });
});
