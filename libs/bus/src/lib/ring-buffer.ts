/** Keeps the last `capacity` items; older ones fall off. */
export class RingBuffer<T> {
  private readonly items: T[] = [];
  private next = 0;

  constructor(readonly capacity: number) {}

  add(item: T): void {
    if (this.capacity <= 0) return;
    if (this.items.length < this.capacity) this.items.push(item);
    else this.items[this.next] = item;
    this.next = (this.next + 1) % this.capacity;
  }

  /** Oldest first. */
  toArray(): T[] {
    if (this.items.length < this.capacity) return [...this.items];
    return [...this.items.slice(this.next), ...this.items.slice(0, this.next)];
  }
}
