/** A FIFO async lock: `run` executes one task at a time, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every earlier task has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
