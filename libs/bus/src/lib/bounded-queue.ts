/**
 * A FIFO queue with a fixed capacity. `push` waits (back-pressure) while the queue is full;
 * `shift` wakes the oldest waiting producer. Memory never exceeds capacity plus waiting producers.
 */
export class BoundedQueue<T> {
  private items: (T | undefined)[];
  private head = 0;
  private count = 0;
  private readonly waitingProducers: { readonly item: T; readonly resolve: () => void }[] = [];

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be >= 1');
    this.items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Producers currently blocked waiting for room. */
  get blocked(): number {
    return this.waitingProducers.length;
  }

  /** Adds without waiting; false when full. */
  tryPush(item: T): boolean {
    if (this.count === this.capacity) return false;
    this.items[(this.head + this.count) % this.capacity] = item;
    this.count++;
    return true;
  }

  /**
   * Adds, waiting for room while the queue is full. Waiting producers are served in arrival order
   * (a freed slot is handed to the oldest waiter), so nobody overtakes an earlier blocked producer.
   */
  push(item: T): Promise<void> {
    if (this.waitingProducers.length === 0 && this.tryPush(item)) return Promise.resolve();
    return new Promise<void>((resolve) => this.waitingProducers.push({ item, resolve }));
  }

  /** Removes the oldest item, or undefined when empty. */
  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) % this.capacity;
    this.count--;
    const waiter = this.waitingProducers.shift();
    if (waiter) {
      this.tryPush(waiter.item);
      waiter.resolve();
    }
    return item;
  }

  /** Wakes every blocked producer without queueing its item (used on close so nobody waits forever). */
  releaseAll(): number {
    const waiters = this.waitingProducers.splice(0);
    for (const w of waiters) w.resolve();
    return waiters.length;
  }
}
