import { describe, expect, it } from 'vitest';
import { clusterAddress } from './service-upstream.js';

const svc = (clusterIP: string | undefined, ports = [{ name: 'http', port: 8080 }]) => ({
  metadata: { namespace: 'apps', name: 'echo' },
  spec: { ...(clusterIP === undefined ? {} : { clusterIP }), ports },
});

describe('clusterAddress', () => {
  it('is the cluster IP and the port the Ingress names by number', () => {
    expect(clusterAddress(svc('10.96.0.10'), '8080')).toBe('10.96.0.10:8080');
  });

  it('looks a port name up in the Service', () => {
    expect(clusterAddress(svc('10.96.0.10'), 'http')).toBe('10.96.0.10:8080');
    expect(clusterAddress(svc('10.96.0.10'), 'grpc')).toBeUndefined();
  });

  it('brackets an IPv6 cluster IP', () => {
    expect(clusterAddress(svc('fd00::a'), '8080')).toBe('[fd00::a]:8080');
  });

  it.each([['None'], [''], [undefined], ['10.96.0.10 x'], ['not-an-ip']])(
    'is nothing for the cluster IP %j (headless, none yet, or not an address)',
    (ip) => {
      expect(clusterAddress(svc(ip), '8080')).toBeUndefined();
    },
  );

  it('is nothing without a Service or with a port out of range', () => {
    expect(clusterAddress(undefined, '8080')).toBeUndefined();
    expect(clusterAddress(svc('10.96.0.10'), '70000')).toBeUndefined();
  });
});
