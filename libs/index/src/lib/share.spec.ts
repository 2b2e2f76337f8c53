import { describe, expect, it } from 'vitest';
import { sharedWith } from './share.js';

describe('sharedWith', () => {
  it('keeps the old parts that are equal, and the new ones that are not', () => {
    const old = {
      metadata: { name: 'a', resourceVersion: '1', labels: { app: 'a' } },
      spec: { rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }] },
      status: { loadBalancer: {} },
    };
    const next = {
      metadata: { name: 'a', resourceVersion: '2', labels: { app: 'a' } },
      spec: { rules: [{ host: 'a.example.com' }, { host: 'c.example.com' }] },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } },
    };
    const shared = sharedWith(old, next) as typeof next;
    expect(shared).toEqual(next);
    expect(shared).not.toBe(old);
    expect(shared.metadata.labels).toBe(old.metadata.labels);
    expect(shared.metadata).not.toBe(old.metadata);
    expect(shared.spec.rules[0]).toBe(old.spec.rules[0]);
    expect(shared.spec.rules[1]).toBe(next.spec.rules[1]);
    expect(shared.status).toBe(next.status);
  });

  it('gives the old value itself when all of it is equal, and never changes either', () => {
    const old = Object.freeze({ a: [1, { b: 'x' }], c: null });
    const next = { a: [1, { b: 'x' }], c: null };
    expect(sharedWith(old, next)).toBe(old);
    expect(next).toEqual({ a: [1, { b: 'x' }], c: null });
  });

  it('counts key order, lengths and kinds as differences', () => {
    const old = { a: 1, b: 2 };
    const reordered = { b: 2, a: 1 };
    expect(sharedWith(old, reordered)).not.toBe(old);
    expect(Object.keys(sharedWith(old, reordered) as object)).toEqual(['b', 'a']);
    const list = [1, 2];
    expect(sharedWith(list, [1, 2, 3])).toEqual([1, 2, 3]);
    expect(sharedWith({ a: 1 }, { a: 1, b: undefined })).toEqual({ a: 1, b: undefined });
    expect(sharedWith({ a: { x: 1 } }, { a: [1] })).toEqual({ a: [1] });
    expect(sharedWith([1], { 0: 1 })).toEqual({ 0: 1 });
    expect(sharedWith('1', 1)).toBe(1);
  });
});
