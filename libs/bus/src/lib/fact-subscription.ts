import { BoundedQueue } from './bounded-queue.js';
import type { BusEvent, FactHandler } from './envelope.js';

/** Reported when one subscriber has kept a publisher waiting for longer than slowAfterMs. */
export interface SlowSubscriberReport {
  readonly topic: string;
  readonly subscriber: string;
  readonly queued: number;
  readonly waitedMs: number;
}

type RunInContext = (event: BusEvent, run: () => Promise<void>) => Promise<void>;
type OnError = ((error: unknown, event: BusEvent, subscriber: string) => void) | undefined;

/** One subscriber of a fact topic: a bounded queue drained by one loop, in order. */
export class FactSubscription {
  private readonly queue: BoundedQueue<BusEvent>;
  private draining: Promise<void> | undefined;
  private closed = false;
  slowReports = 0;

  constructor(
    readonly topic: string,
    readonly name: string,
    capacity: number,
    private readonly handler: FactHandler<string, unknown>,
    private readonly runInContext: RunInContext,
    private readonly onError: OnError,
  ) {
    this.queue = new BoundedQueue(capacity);
  }

  get queued(): number {
    return this.queue.size;
  }

  get blocked(): number {
    return this.queue.blocked;
  }

  /** Queues an event, waiting while the queue is full; a long wait is reported, never dropped. */
  async enqueue(
    event: BusEvent,
    slowAfterMs: number,
    onSlow: ((r: SlowSubscriberReport) => void) | undefined,
  ): Promise<void> {
    if (this.closed) return;
    if (this.queue.blocked === 0 && this.queue.tryPush(event)) {
      this.kick();
      return;
    }
    const started = Date.now();
    const timer = setTimeout(() => this.reportSlow(onSlow, Date.now() - started), slowAfterMs);
    timer.unref();
    this.kick();
    await this.queue.push(event);
    clearTimeout(timer);
    this.kick();
  }

  /** Resolves when the queue is empty and the handler is not running. */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  close(): void {
    this.closed = true;
    this.queue.releaseAll();
  }

  private reportSlow(
    onSlow: ((r: SlowSubscriberReport) => void) | undefined,
    waitedMs: number,
  ): void {
    this.slowReports++;
    onSlow?.({ topic: this.topic, subscriber: this.name, queued: this.queue.size, waitedMs });
  }

  private kick(): void {
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  private async drain(): Promise<void> {
    // Start on a fresh tick so that publish() returns before handlers run.
    await Promise.resolve();
    for (let event = this.queue.shift(); event && !this.closed; event = this.queue.shift()) {
      try {
        await this.runInContext(event, async () => this.handler(event));
      } catch (error) {
        this.onError?.(error, event, this.name);
      }
    }
  }
}
