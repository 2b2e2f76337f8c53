import type { BusEvent, StateHandler } from './envelope.js';

type RunInContext = (event: BusEvent, run: () => Promise<void>) => Promise<void>;
type OnError = ((error: unknown, event: BusEvent, subscriber: string) => void) | undefined;

/** One subscriber of a state topic: holds at most the newest undelivered value. */
export class StateSubscription {
  pending: BusEvent | undefined;
  private skipped = 0;
  private draining: Promise<void> | undefined;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly handler: StateHandler<string, unknown>,
    private readonly runInContext: RunInContext,
    private readonly onError: OnError,
  ) {}

  /** Offers a new value; an undelivered older one is replaced and counted as skipped. */
  offer(event: BusEvent): void {
    if (this.closed) return;
    if (this.pending) this.skipped++;
    this.pending = event;
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  close(): void {
    this.closed = true;
    this.pending = undefined;
  }

  private async drain(): Promise<void> {
    await Promise.resolve();
    while (this.pending && !this.closed) {
      const event = this.pending;
      const skipped = this.skipped;
      this.pending = undefined;
      this.skipped = 0;
      try {
        await this.runInContext(event, async () => this.handler(event, { skipped }));
      } catch (error) {
        this.onError?.(error, event, this.name);
      }
    }
  }
}
