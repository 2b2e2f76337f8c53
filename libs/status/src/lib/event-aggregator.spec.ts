import { describe, expect, it } from 'vitest';
import { EventAggregator, type EventRecord } from './event-aggregator.js';

const rec = (message: string): EventRecord => ({
  involved: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    namespace: 'ns',
    name: 'x',
    uid: 'u1',
  },
  type: 'Warning',
  reason: 'Quarantined',
  message,
});

describe('Event aggregation', () => {
  it('creates once, then raises the count of the same Event', () => {
    const a = new EventAggregator();
    const first = a.record(rec('bad host'), 1_000);
    const second = a.record(rec('bad host'), 2_000);
    expect(first).toMatchObject({ op: 'create', namespace: 'ns' });
    expect(second).toMatchObject({ op: 'update', name: first.name, count: 2 });
    expect(a.record(rec('bad host'), 3_000)).toMatchObject({ op: 'update', count: 3 });
  });

  it('a different message, an expired window or a forgotten key creates a new Event', () => {
    const a = new EventAggregator(10_000);
    const first = a.record(rec('one'), 0);
    expect(a.record(rec('two'), 1).op).toBe('create');
    expect(a.record(rec('one'), 20_000).op).toBe('create');
    const again = a.record(rec('one'), 20_001);
    expect(again.op).toBe('update');
    a.forget(again.key);
    const fresh = a.record(rec('one'), 20_002);
    expect(fresh.op).toBe('create');
    expect(fresh.name).not.toBe(first.name);
  });

  it('remembers at most maxKeys', () => {
    const a = new EventAggregator(60_000, 2);
    a.record(rec('1'), 0);
    a.record(rec('2'), 0);
    a.record(rec('3'), 0);
    expect(a.record(rec('1'), 1).op).toBe('create');
    expect(a.record(rec('3'), 1).op).toBe('update');
  });
});
