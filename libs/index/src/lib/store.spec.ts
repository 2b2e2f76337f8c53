import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResourceStore } from './store.js';
import type { KubeObject } from './types.js';

const obj = (namespace: string, name: string, v: number): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, resourceVersion: String(v) },
});

describe('ResourceStore', () => {
  it('stores a newer version with the parts it shares with the stored one (a relist too)', () => {
    const store = new ResourceStore({ indexBy: ['metadata.namespace'], store: 'full' });
    const version = (v: number, host: string): KubeObject => ({
      ...obj('a', 'x', v),
      spec: { rules: [{ host }], tls: [{ hosts: [host] }] },
      status: { v },
    });
    store.upsert(version(1, 'a.example.com'));
    const [first] = store.view().objects() as (KubeObject & { spec: object })[];
    expect(store.upsert(version(2, 'a.example.com'))).toBe('modified');
    const [second] = store.view().objects() as (KubeObject & { spec: object; status: object })[];
    expect(second).toEqual(version(2, 'a.example.com'));
    expect(second).not.toBe(first);
    expect(second?.spec).toBe(first?.spec);
    expect(Object.isFrozen(second?.status)).toBe(true);
    store.upsert(version(3, 'b.example.com'));
    const [third] = store.view().objects() as (KubeObject & { spec: { tls: object } })[];
    expect(third?.spec).not.toBe(second?.spec);
    store.reset(undefined, [version(4, 'b.example.com')]);
    const [fourth] = store.view().objects() as (KubeObject & { spec: object })[];
    expect(fourth?.spec).toBe(third?.spec);
  });

  it('keeps its view sorted by namespace/name after any upserts and removes (patched, not sorted)', () => {
    const op = fc.record({
      ns: fc.constantFrom('a', 'b', 'c'),
      name: fc.constantFrom('x', 'y', 'z', 'w'),
      remove: fc.boolean(),
      look: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const store = new ResourceStore({ indexBy: ['metadata.namespace'], store: 'full' });
        const expected = new Map<string, KubeObject>();
        ops.forEach((o, v) => {
          const key = `${o.ns}/${o.name}`;
          if (o.remove) {
            store.remove(o.ns, o.name);
            expected.delete(key);
          } else {
            const object = obj(o.ns, o.name, v);
            store.upsert(object);
            expected.set(key, object);
          }
          // the sorted entries exist only once read: read them (or not) before the next change
          if (!o.look) return;
          const want = [...expected.keys()].sort().map((k) => expected.get(k));
          expect(store.view().objects()).toEqual(want);
        });
        const want = [...expected.keys()].sort().map((k) => expected.get(k));
        expect(store.view().objects()).toEqual(want);
      }),
      { numRuns: 300, seed: 20261202 },
    );
  });
});
