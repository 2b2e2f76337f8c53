import { describe, expect, it } from 'vitest';
import { retryPortRace } from './haproxy-process.js';

describe('retryPortRace', () => {
  const inUse = new Error('haproxy did not start: cannot bind socket (Address already in use)');

  it('starts again after a lost port race, up to three tries in all', async () => {
    let calls = 0;
    const started = await retryPortRace(() =>
      ++calls < 3 ? Promise.reject(inUse) : Promise.resolve('up'),
    );
    expect([started, calls]).toEqual(['up', 3]);
    calls = 0;
    await expect(retryPortRace(() => (++calls, Promise.reject(inUse)))).rejects.toBe(inUse);
    expect(calls).toBe(3);
  });

  it('throws any other failure at once', async () => {
    let calls = 0;
    const other = new Error('haproxy did not start: unknown keyword');
    await expect(retryPortRace(() => (++calls, Promise.reject(other)))).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});
