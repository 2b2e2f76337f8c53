import { describe, expect, it } from 'vitest';
import { BoundedQueue } from './bounded-queue.js';

describe('BoundedQueue', () => {
  it('never holds more than its capacity and serves blocked producers in order', async () => {
    const q = new BoundedQueue<number>(2);
    await q.push(1);
    await q.push(2);
    const third = q.push(3);
    const fourth = q.push(4);
    expect(q.size).toBe(2);
    expect(q.blocked).toBe(2);
    expect(q.tryPush(99)).toBe(false);
    const out = [q.shift(), q.shift(), q.shift(), q.shift()];
    await Promise.all([third, fourth]);
    expect(out).toEqual([1, 2, 3, 4]);
    expect(q.size).toBe(0);
  });

  it('refuses a capacity below one', () => {
    expect(() => new BoundedQueue(0)).toThrow(RangeError);
  });
});
