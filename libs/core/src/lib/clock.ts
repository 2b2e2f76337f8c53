/** An opaque timer handle from a Clock. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/** Time as a port, so timing logic is tested with a fake clock instead of real waiting. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock (timers do not keep the process alive). */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * A monotonic clock (performance.now(): never jumps with wall-clock changes). Durations that
 * decide safety, such as lease expiry, are measured on it.
 */
export const monotonicClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => systemClock.setTimeout(fn, ms),
  clearTimeout: (handle) => systemClock.clearTimeout(handle),
};
