import { describe, expect, it } from 'vitest';
import { allocateSlots, serviceEndpoints, SliceRefused } from './servers.js';

const service = { spec: { ports: [{ name: 'http', port: 80 }, { port: 9000 }] } };
const slice = (endpoints: object[], extra: object = {}) => ({
  metadata: { namespace: 'apps', name: 'web-1' },
  addressType: 'IPv4',
  ports: [{ name: 'http', port: 8080 }, { port: 9090 }],
  endpoints,
  ...extra,
});
const ep = (ip: string, conditions: object = { ready: true }) => ({ addresses: [ip], conditions });

describe('serviceEndpoints', () => {
  it('finds the Service port by number or name and its endpoints by port name', () => {
    const s = slice([
      ep('10.0.0.2'),
      ep('10.0.0.1', {}),
      ep('10.0.0.3', { ready: false, serving: true, terminating: true }),
      ep('10.0.0.4', { ready: false }),
    ]);
    const want = [
      ['10.0.0.1:8080', '1'],
      ['10.0.0.2:8080', '1'],
      ['10.0.0.3:8080', '0'],
    ];
    expect([...serviceEndpoints([service], [s], '80')]).toEqual(want);
    expect([...serviceEndpoints([service], [s], 'http')]).toEqual(want);
    expect([...serviceEndpoints([service], [s], '9000')].map(([a]) => a)).toContain(
      '10.0.0.1:9090',
    );
    expect(serviceEndpoints([service], [s], '81').size).toBe(0);
  });

  it('brackets IPv6 and refuses a bad address or port, naming the slice', () => {
    const v6 = slice([ep('fd00::1')], { addressType: 'IPv6' });
    expect([...serviceEndpoints([service], [v6], '80').keys()]).toEqual(['[fd00::1]:8080']);
    const bad = slice([ep('10.0.0.1 backup')]);
    expect(() => serviceEndpoints([service], [bad], '80')).toThrow(
      new SliceRefused(bad, 'EndpointSlice apps/web-1: 10.0.0.1 backup is not an IPv4 address'),
    );
    const port = slice([ep('10.0.0.1')], { ports: [{ name: 'http', port: 0 }] });
    expect(() => serviceEndpoints([service], [port], '80')).toThrow('port is not 1-65535');
  });
});

describe('serviceEndpoints ordering', () => {
  it('orders by "address weight" entries: a prefix first, weight 0 winning a tie', () => {
    const a = slice([
      ep('10.0.0.10'),
      ep('10.0.0.1', { ready: false, serving: true, terminating: true }),
    ]);
    const b = slice([ep('10.0.0.1'), ep('10.0.0.9')], { ports: [{ name: 'http', port: 8080 }] });
    const other = slice([ep('10.0.0.1')], { ports: [{ name: 'http', port: 80 }] });
    expect([...serviceEndpoints([service], [a, b, other], '80')]).toEqual([
      ['10.0.0.10:8080', '1'],
      ['10.0.0.1:80', '1'],
      ['10.0.0.1:8080', '0'],
      ['10.0.0.9:8080', '1'],
    ]);
  });

  it('reads a port written as text with a space as its first two words did', () => {
    const s = slice([ep('10.0.0.2'), ep('10.0.0.1')], { ports: [{ name: 'http', port: '80 7' }] });
    expect([...serviceEndpoints([service], [s], '80')]).toEqual([
      ['10.0.0.1:80', '7'],
      ['10.0.0.2:80', '7'],
    ]);
  });
});

describe('allocateSlots', () => {
  const eps = (n: number) =>
    new Map(Array.from({ length: n }, (_, i) => [`10.0.0.${i + 1}:80`, '1'] as const));

  it('fills slots in address order and leaves the rest free', () => {
    expect(allocateSlots(eps(2), 3, [])).toEqual([
      { name: 'srv1', address: '10.0.0.1:80', weight: '1' },
      { name: 'srv2', address: '10.0.0.2:80', weight: '1' },
      { name: 'srv3' },
    ]);
  });

  it('doubles the slot count until every endpoint fits, never below the deployed count', () => {
    expect(allocateSlots(eps(9), 2, [])).toHaveLength(16);
    const deployed = Array.from({ length: 12 }, (_, i) => ({ name: `srv${i + 1}`, address: 'x' }));
    expect(allocateSlots(eps(1), 8, deployed)).toHaveLength(12);
  });

  it('keeps an endpoint on its deployed slot; new ones take the free slots', () => {
    const deployed = [
      { name: 'srv1', address: '10.0.0.9:80' },
      { name: 'srv2', address: '10.0.0.2:80' },
    ];
    expect(allocateSlots(eps(3), 4, deployed)).toEqual([
      { name: 'srv1', address: '10.0.0.1:80', weight: '1' },
      { name: 'srv2', address: '10.0.0.2:80', weight: '1' },
      { name: 'srv3', address: '10.0.0.3:80', weight: '1' },
      { name: 'srv4' },
    ]);
    const moved = [{ name: 'srv3', address: '10.0.0.1:80' }];
    expect(allocateSlots(eps(2), 3, moved).map((s) => s.address)).toEqual([
      '10.0.0.2:80',
      undefined,
      '10.0.0.1:80',
    ]);
  });
});
