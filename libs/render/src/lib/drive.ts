// Runs a render as liquidjs does (a generator whose yielded iterators are run and whose results
// are sent back), but resumable: at a PAUSE the yielding driver lets the event loop run (timers,
// I/O: the leader's lease renewal) before it goes on, so a long render never blocks the process.
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Yielded by the render where it may give way (between fragments, templates and attempts). */
export const PAUSE: unique symbol = Symbol('haptic render pause');

type Step = Generator<unknown, unknown, unknown>;

/** As liquidjs's `isIterator`: a yielded iterator is run and its result sent back. */
function isStep(value: unknown): value is Step {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Record<'next' | 'throw' | 'return', unknown>>;
  return (
    typeof v.next === 'function' && typeof v.throw === 'function' && typeof v.return === 'function'
  );
}

/**
 * An explicit stack of generators (liquidjs's own driver recurses), so a run can stop at any
 * depth and resume later. Values other than iterators are sent back as they are (as liquidjs's
 * synchronous driver does); a child's error is thrown into its parent.
 */
class Driver<T> {
  private readonly stack: Step[];
  private value: unknown = undefined;
  private throwing = false;

  constructor(root: Generator<unknown, T, unknown>) {
    this.stack = [root];
  }

  /** Runs until the root returns (`{ value }`) or, when `pausing`, until a PAUSE (undefined). */
  run(pausing: boolean): { value: T } | undefined {
    const stack = this.stack;
    for (;;) {
      const top = stack[stack.length - 1] as Step;
      let state: IteratorResult<unknown, unknown>;
      try {
        state = this.throwing ? top.throw(this.value) : top.next(this.value);
      } catch (err) {
        stack.pop();
        if (stack.length === 0) throw err;
        this.value = err;
        this.throwing = true;
        continue;
      }
      this.throwing = false;
      const value = state.value;
      if (state.done === true) {
        stack.pop();
        this.value = value;
        if (stack.length === 0) return { value: value as T };
      } else if (isStep(value)) {
        stack.push(value);
        this.value = undefined;
      } else {
        this.value = value;
        if (pausing && value === PAUSE) return undefined;
      }
    }
  }
}

/** Runs a render generator to its end without giving way (PAUSEs are passed over). */
export function driveSync<T>(root: Generator<unknown, T, unknown>): T {
  return (new Driver(root).run(false) as { value: T }).value;
}

/** Runs a render generator, letting the event loop run at each PAUSE (then `resumed`). */
export async function driveYielding<T>(
  root: Generator<unknown, T, unknown>,
  resumed: () => void = () => undefined,
): Promise<T> {
  const driver = new Driver(root);
  for (;;) {
    const done = driver.run(true);
    if (done) return done.value;
    await nextTurn();
    resumed();
  }
}

/** How often a yielding render gives way: after `sliceMs` of work since the last time. */
export class Pacer {
  private since = performance.now();

  constructor(private readonly sliceMs: number) {}

  /** True when the render has worked `sliceMs` since it last gave way or resumed. */
  due(): boolean {
    return performance.now() - this.since >= this.sliceMs;
  }

  /** The render goes on after giving way: its slice starts now (waiting is not work). */
  restart(): void {
    this.since = performance.now();
  }
}

/** The default slice of a yielding render between two turns of the event loop. */
export const DEFAULT_SLICE_MS = 15;
