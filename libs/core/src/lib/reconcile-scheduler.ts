import { systemClock, type Clock, type TimerHandle } from './clock.js';

/** What one run covers: the triggers coalesced into it. */
export interface ReconcileBatch {
  readonly reasons: readonly string[];
  /** Number of triggers covered (reasons are de-duplicated, this is not). */
  readonly triggers: number;
  /** When the oldest covered trigger arrived. */
  readonly firstAt: number;
}

export interface ReconcileSchedulerOptions {
  readonly debounceMs: number;
  readonly maxDelayMs: number;
  readonly run: (batch: ReconcileBatch) => Promise<void>;
  readonly clock?: Clock;
  readonly onError?: (error: unknown) => void;
}

/**
 * The reconcile timing contract (DESIGN.md §3): the first trigger after a quiet period runs at once
 * (leading edge); later triggers are coalesced until `debounceMs` passes without one (trailing
 * edge), but no trigger waits more than `maxDelayMs` for its run to start; runs never overlap, and
 * triggers arriving during a run are covered by one run after it (level-based: a run always reads
 * the whole current state, so coalescing loses nothing).
 */
export class ReconcileScheduler {
  private readonly clock: Clock;
  private pending:
    { reasons: Set<string>; triggers: number; firstAt: number; lastAt: number } | undefined;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(private readonly opts: ReconcileSchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  /** Marks the world dirty. */
  trigger(reason: string): void {
    if (this.stopped) return;
    const now = this.clock.now();
    this.pending ??= { reasons: new Set(), triggers: 0, firstAt: now, lastAt: now };
    this.pending.reasons.add(reason);
    this.pending.triggers++;
    this.pending.lastAt = now;
    this.plan();
  }

  /** Resolves when no run is in progress (pending triggers may remain scheduled). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops scheduling; an in-progress run finishes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.settled();
  }

  private plan(): void {
    if (!this.pending || this.running || this.stopped) return;
    const now = this.clock.now();
    const quiet = this.timer === undefined && now - this.lastRunAt >= this.opts.debounceMs;
    const due = Math.min(
      this.pending.lastAt + this.opts.debounceMs,
      this.pending.firstAt + this.opts.maxDelayMs,
    );
    if (quiet || due <= now) {
      this.start();
      return;
    }
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.plan();
    }, due - now);
  }

  private start(): void {
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const p = this.pending!;
    this.pending = undefined;
    this.lastRunAt = this.clock.now();
    const batch: ReconcileBatch = {
      reasons: [...p.reasons],
      triggers: p.triggers,
      firstAt: p.firstAt,
    };
    this.running = this.opts
      .run(batch)
      .catch((e: unknown) => this.opts.onError?.(e))
      .finally(() => {
        this.running = undefined;
        this.plan();
      });
  }
}
