import { systemClock, type Clock, type TimerHandle } from './clock.js';

/** What one run covers: the triggers coalesced into it. */
export interface ReconcileBatch {
  readonly reasons: readonly string[];
  /** Number of triggers covered (reasons are de-duplicated, this is not). */
  readonly triggers: number;
  /** When the oldest covered trigger arrived. */
  readonly firstAt: number;
  /** Ids the triggers named (de-duplicated, in arrival order, at most `maxIds`). */
  readonly ids: readonly string[];
}

export interface ReconcileSchedulerOptions {
  readonly debounceMs: number;
  readonly maxDelayMs: number;
  readonly run: (batch: ReconcileBatch) => Promise<void>;
  readonly clock?: Clock;
  readonly onError?: (error: unknown) => void;
  /** At most this many trigger ids are kept per batch (default 64). */
  readonly maxIds?: number;
}

/**
 * The reconcile timing contract (DESIGN.md §3): a trigger that finds the scheduler idle (no run in
 * progress, none waiting) runs at once — no fixed debounce in the way of a lone change. Triggers
 * arriving while a run is in progress are coalesced into one run after it, which starts once
 * `debounceMs` passed without a trigger (0: as soon as the run ends), but no trigger waits more
 * than `maxDelayMs` for its run to start; runs never overlap (level-based: a run always reads the
 * whole current state, so coalescing loses nothing).
 */
export class ReconcileScheduler {
  private readonly clock: Clock;
  private pending:
    | {
        reasons: Set<string>;
        ids: Set<string>;
        triggers: number;
        firstAt: number;
        lastAt: number;
        /** Some trigger arrived while a run was in progress or waiting: coalesce (debounce). */
        coalescing: boolean;
      }
    | undefined;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: ReconcileSchedulerOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  /** Marks the world dirty; `id` (a change's correlation id) is handed to the run that covers it. */
  trigger(reason: string, id?: string): void {
    if (this.stopped) return;
    const now = this.clock.now();
    const busy = this.running !== undefined || this.timer !== undefined;
    const p = (this.pending ??= {
      reasons: new Set(),
      ids: new Set(),
      triggers: 0,
      firstAt: now,
      lastAt: now,
      coalescing: false,
    });
    p.reasons.add(reason);
    if (id !== undefined && p.ids.size < (this.opts.maxIds ?? 64)) p.ids.add(id);
    p.triggers++;
    p.lastAt = now;
    p.coalescing ||= busy;
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
    const due = Math.min(
      this.pending.lastAt + this.opts.debounceMs,
      this.pending.firstAt + this.opts.maxDelayMs,
    );
    if (!this.pending.coalescing || due <= now) {
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
    const batch: ReconcileBatch = {
      reasons: [...p.reasons],
      triggers: p.triggers,
      firstAt: p.firstAt,
      ids: [...p.ids],
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
