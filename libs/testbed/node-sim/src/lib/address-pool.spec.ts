import { describe, expect, it } from 'vitest';
import { AddressPool } from './address-pool.js';
import { AddressPoolExhaustedError, NodeSimConfigError } from './node-sim.errors.js';

describe('AddressPool', () => {
  it('hands out distinct addresses, skipping .0, .255 and 127.0.0.1', () => {
    const pool = new AddressPool('127.0.0.0', '127.0.1.1');
    const got = Array.from({ length: 254 }, () => pool.allocate());
    expect(new Set(got).size).toBe(254);
    expect(got).not.toContain('127.0.0.1');
    expect(got).not.toContain('127.0.0.255');
    expect(got).not.toContain('127.0.1.0');
    expect(() => pool.allocate()).toThrow(AddressPoolExhaustedError);
  });

  it('puts a released address at the back of the queue and lets a pod reclaim its own', () => {
    const pool = new AddressPool('127.0.10.1', '127.0.10.3');
    const a = pool.allocate();
    pool.release(a);
    expect(pool.allocate()).toBe('127.0.10.2');
    expect(pool.claim('127.0.10.1')).toBe(true);
    expect(pool.claim('127.0.10.1')).toBe(false);
    expect(pool.inUse).toBe(2);
  });

  it('rejects ranges outside loopback', () => {
    expect(() => new AddressPool('10.0.0.1', '10.0.0.9')).toThrow(NodeSimConfigError);
  });
});
