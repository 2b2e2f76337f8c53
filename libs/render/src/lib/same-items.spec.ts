import { describe, expect, it } from 'vitest';
import { sameItems } from './same-items.js';

describe('sameItems', () => {
  const a = { n: 1 };
  const b = { n: 1 };
  it('compares elements by identity, in order', () => {
    expect(sameItems([a, b], [a, b])).toBe(true);
    expect(sameItems([a, a], [a, b])).toBe(false); // equal contents, not the same object
    expect(sameItems([a, b], [b, a])).toBe(false);
    expect(sameItems([a], [a, b])).toBe(false);
    expect(sameItems([], [])).toBe(true);
    expect(sameItems(['x', 'y'], ['x', 'y'])).toBe(true);
  });
});
