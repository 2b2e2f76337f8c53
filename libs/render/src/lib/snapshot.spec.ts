import { snapshotOf } from '#index';
import { describe, expect, it } from 'vitest';
import { ExcludingSnapshot, refKey } from './snapshot.js';

// Render runs over #index's snapshot (the one production uses; `snapshotOf` builds it from fixed
// objects). These tests pin what templates rely on: order, look-ups, quarantine.
const slice = (ns: string, name: string, svc: string): object => ({
  kind: 'EndpointSlice',
  metadata: { namespace: ns, name, labels: { 'kubernetes.io/service-name': svc } },
});

describe('the snapshot templates read', () => {
  const snap = snapshotOf(
    { slices: ['metadata.namespace', "metadata.labels['kubernetes.io/service-name']"] },
    {
      slices: [
        slice('b', 'web-2', 'web'),
        slice('a', 'web-1', 'web'),
        slice('b', 'web-1', 'web'),
        slice('b', 'api-1', 'api'),
      ],
    },
  );
  const names = (objs: readonly object[]): string[] =>
    objs.map((o) => {
      const m = (o as { metadata: { namespace: string; name: string } }).metadata;
      return `${m.namespace}/${m.name}`;
    });

  it('lists in namespace/name order', () => {
    expect(names(snap.list('slices'))).toEqual(['a/web-1', 'b/api-1', 'b/web-1', 'b/web-2']);
  });

  it('looks up exactly by every key, non-unique', () => {
    expect(names(snap.lookup('slices', ['b', 'web']))).toEqual(['b/web-1', 'b/web-2']);
    expect(snap.lookup('slices', ['c', 'web'])).toEqual([]);
  });

  it('looks up by prefix with fewer keys', () => {
    expect(names(snap.lookup('slices', ['b']))).toEqual(['b/api-1', 'b/web-1', 'b/web-2']);
  });

  it('refuses more keys than indexBy and an unknown resource (a template bug, not "no match")', () => {
    expect(() => snap.lookup('slices', ['b', 'web', 'x'])).toThrow(
      /indexed by 2 key\(s\); 3 given/,
    );
    expect(() => snap.list('nope')).toThrow(/nope/);
  });

  it('leaves quarantined objects out of lists and look-ups', () => {
    const key = refKey({ watched: 'slices', kind: 'EndpointSlice', namespace: 'b', name: 'web-1' });
    const view = new ExcludingSnapshot(snap, new Set([key]));
    expect(names(view.list('slices'))).toEqual(['a/web-1', 'b/api-1', 'b/web-2']);
    expect(names(view.lookup('slices', ['b', 'web']))).toEqual(['b/web-2']);
  });

  it('refuses an indexBy that is not a field path', () => {
    expect(() => snapshotOf({ x: ['$.bad'] }, {})).toThrow(/\$\.bad/);
  });
});
