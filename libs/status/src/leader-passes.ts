import type { SchedulerRegistry } from '@nestjs/schedule';
import { Term, whenAborted } from './lib/aborted.js';

/**
 * The leader-only pass loop both status writers share: passes run one at a time, a request
 * during a pass runs one more after it (latest wins), a resync interval kept in the
 * SchedulerRegistry (@nestjs/schedule) requests one every `resyncMs`, and each term of
 * leadership has its own abort signal that the stop's deadline aborts.
 */
export class LeaderPasses {
  private running: Promise<void> | undefined;
  private dirty = false;
  private active = false;
  private term = new Term();

  constructor(
    private readonly scheduler: SchedulerRegistry,
    /** The resync interval's name in the SchedulerRegistry. */
    private readonly name: string,
    private readonly resyncMs: number,
    /** One pass; `term` aborts when the term's deadline passes (write nothing more then). */
    private readonly pass: (term: AbortSignal) => Promise<void>,
  ) {}

  /** Whether this replica leads (passes run only then). */
  get leading(): boolean {
    return this.active;
  }

  /** A term begins: the resync interval starts and a first pass runs. */
  start(): void {
    this.active = true;
    this.term = new Term();
    this.stopResync();
    const resync = setInterval(() => this.request(), this.resyncMs);
    resync.unref();
    this.scheduler.addInterval(this.name, resync);
    this.request();
  }

  /** A term ends: no pass starts; the one in flight writes no more once `deadline` aborts. */
  stop(deadline?: AbortSignal): void {
    this.active = false;
    this.stopResync();
    if (deadline) this.term.follow(deadline);
  }

  /** Resolves when the pass in flight ends, or when `deadline` aborts. */
  async drained(deadline: AbortSignal): Promise<void> {
    await Promise.race([this.running, whenAborted(deadline)]);
  }

  /** Asks for a pass: now when none runs, else one more after the current one. */
  request(): void {
    if (!this.active) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = this.pass(this.term.signal).finally(() => {
      this.running = undefined;
      if (this.dirty) {
        this.dirty = false;
        this.request();
      }
    });
  }

  /** Resolves when no pass runs or is due (tests). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private stopResync(): void {
    if (this.scheduler.doesExist('interval', this.name)) this.scheduler.deleteInterval(this.name);
  }
}
