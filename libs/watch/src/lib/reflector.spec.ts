import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeKubeApi } from '#testbed/testing';
import { KubeApiError } from '../watch.errors.js';
import { Reflector, type ReflectorHandlers } from './reflector.js';

const ING = { apiVersion: 'networking.k8s.io/v1', plural: 'ingresses' };
const handlers: ReflectorHandlers = {
  reset: () => undefined,
  upsert: () => undefined,
  remove: () => undefined,
  listed: () => undefined,
};

describe('Reflector backoff', () => {
  afterEach(() => void vi.useRealTimers());

  it('starts its backoff over after a watch that was answered and ended cleanly', async () => {
    vi.useFakeTimers();
    const api = new FakeKubeApi();
    let calls = 0;
    // every other watch request fails with a 500; the ones between are answered and end cleanly
    api.watch = () =>
      ++calls % 2 === 1
        ? Promise.reject(new KubeApiError(500, 'InternalError', 'injected', '/x'))
        : Promise.resolve();
    const timing = {
      watchTimeoutSeconds: 5,
      idleTimeoutMs: 2000,
      backoffInitialMs: 1000,
      backoffMaxMs: 60_000,
      unlistableRetryMs: 1000,
    };
    // random() = 1: each delay is its full backoff step (no jitter below it)
    const reflector = new Reflector(api, { type: ING, query: {} }, handlers, timing, () => 1);
    reflector.start();
    await vi.advanceTimersByTimeAsync(10_500);
    // each failure waits the first step (1 s): 11 failures in 10.5 s. Doubling without a reset
    // (1, 2, 4, 8 s) would have allowed only 4.
    expect(Math.ceil(calls / 2)).toBeGreaterThanOrEqual(10);
    const stopped = reflector.stop();
    await vi.advanceTimersByTimeAsync(2000);
    await stopped;
  });
});
