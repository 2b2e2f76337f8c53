/** A counting semaphore: at most `size` tasks run at once, the rest wait in arrival order. */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError('limiter size must be >= 1');
  }

  /** Runs `task` when a slot is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await task();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

/** Maps `items` through `fn` with at most `workers` in flight; results keep input order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  workers: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const limiter = new Limiter(Math.max(1, workers));
  return Promise.all(items.map((item, i) => limiter.run(() => fn(item, i))));
}
