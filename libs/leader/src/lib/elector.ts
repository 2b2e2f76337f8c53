import type { Clock, TimerHandle } from '#core';
import type { LeaseRecord, LeaseStore, ObservedLease } from './lease-store.js';

/** The election's timing (all milliseconds): renewDeadline < leaseDuration, retryPeriod < renewDeadline. */
export interface ElectionTiming {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/**
 * What stop() did: whether this replica held the Lease, and whether clearing it succeeded (a
 * refused release leaves the Lease naming this replica until it expires).
 */
export interface ReleaseOutcome {
  readonly held: boolean;
  readonly release?: { readonly ok: boolean; readonly reason?: string };
}

/** What this replica last saw of the Lease, for /debug/leader and the leader.status state. */
export interface LeaseObservation {
  /** Holder named by the Lease ('' when released). */
  readonly holder: string;
  /** The holder's renewTime as written (its clock, shown, never compared with ours). */
  readonly renewTime: string;
  /** When this replica saw the record change, on its own monotonic clock. */
  readonly observedAt: number;
}

export interface ElectorCallbacks {
  /** This replica now holds the lease: start leader-only work from current state. */
  onStartedLeading(): void | Promise<void>;
  /**
   * Stop all leader-only work. `deadline` aborts when the lease can no longer be trusted: work
   * still in flight then is abandoned. (Already aborted when renewal failed.)
   */
  onStoppedLeading(deadline: AbortSignal, reason: string): void | Promise<void>;
  onObserved?(observation: LeaseObservation): void;
}

export interface ElectorOptions extends ElectorCallbacks {
  readonly identity: string;
  readonly store: LeaseStore;
  /** Monotonic: expiry and deadlines are measured on it, never on the holder's clock. */
  readonly clock: Clock;
  /** Wall clock for the renewTime/acquireTime written into the Lease. */
  readonly wallNow?: () => Date;
  readonly timing: ElectionTiming;
}

/** Checks the timing rules client-go enforces; returns the problem or undefined. */
export function timingProblem(t: ElectionTiming): string | undefined {
  if (t.retryPeriodMs <= 0) return 'retryPeriod must be greater than zero';
  if (t.renewDeadlineMs <= t.retryPeriodMs) return 'renewDeadline must be greater than retryPeriod';
  if (t.leaseDurationMs <= t.renewDeadlineMs)
    return 'leaseDuration must be greater than renewDeadline';
  if (t.leaseDurationMs < 1000) return 'leaseDuration must be at least 1s (Leases count seconds)';
  return undefined;
}

/** Kubernetes MicroTime text (RFC 3339 with microseconds). */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const sameRecord = (a: LeaseRecord, b: LeaseRecord) =>
  a.holderIdentity === b.holderIdentity &&
  a.renewTime === b.renewTime &&
  a.acquireTime === b.acquireTime &&
  a.leaseDurationSeconds === b.leaseDurationSeconds &&
  a.leaseTransitions === b.leaseTransitions;

/**
 * Lease election as client-go runs it. Every retryPeriod: read the Lease; acquire it when it is
 * free, ours, or unrenewed for its leaseDuration as measured on this replica's monotonic clock from
 * when the current record was first seen; every write names the resourceVersion read
 * (optimistic concurrency). The leader stops its work when renewDeadline has passed since the last
 * renewal it sent that succeeded, which is before any other replica can see the lease expire.
 */
export class LeaderElector {
  private observed: ObservedLease | undefined;
  private observedAt = -Infinity;
  private leading = false;
  private stopping = false;
  private stopped = false;
  private term: AbortController | undefined;
  private deadlineTimer: TimerHandle | undefined;
  private loopTimer: TimerHandle | undefined;
  private attempt: Promise<void> | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** The stop of the last term, until its work has stopped: no campaigning meanwhile. */
  private draining: Promise<void> | undefined;
  private timing: ElectionTiming;

  constructor(private readonly opts: ElectorOptions) {
    const problem = timingProblem(opts.timing);
    if (problem) throw new RangeError(problem);
    this.timing = opts.timing;
  }

  get identity(): string {
    return this.opts.identity;
  }

  /** Whether this replica holds a lease it may still trust. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts campaigning (the first attempt runs at once). */
  start(): void {
    if (this.loopTimer === undefined && this.attempt === undefined) this.tick();
  }

  /** New timing from a new config; used from the next attempt on. */
  setTiming(timing: ElectionTiming): void {
    const problem = timingProblem(timing);
    if (problem) throw new RangeError(problem);
    this.timing = timing;
  }

  /**
   * Stops campaigning. A leader first stops its work while still renewing (in-flight work may finish
   * until the lease deadline), then releases the Lease (holder cleared, leaseDurationSeconds 1, as
   * client-go does) so a standby takes over on its next attempt.
   */
  async stop(options: { release: boolean } = { release: true }): Promise<ReleaseOutcome> {
    if (this.stopped) return { held: false };
    this.stopping = true;
    if (this.leading && this.term) {
      const signal = this.term.signal;
      await this.enqueue(() => this.opts.onStoppedLeading(signal, 'shutting down'));
    }
    this.stopped = true;
    if (this.loopTimer !== undefined) this.opts.clock.clearTimeout(this.loopTimer);
    this.loopTimer = undefined;
    await this.attempt;
    const held = this.leading;
    this.loseLeadership('shutting down', false);
    await this.chain;
    if (!held) return { held: false };
    if (!options.release) return { held: true };
    return { held: true, release: await this.release() };
  }

  private tick(): void {
    this.loopTimer = undefined;
    if (this.stopped) return;
    this.attempt = (this.stopping && !this.leading ? Promise.resolve() : this.tryAcquireOrRenew())
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.attempt = undefined;
        if (!this.stopped)
          this.loopTimer = this.opts.clock.setTimeout(() => this.tick(), this.timing.retryPeriodMs);
      });
  }

  /** One attempt; resolves whether this replica holds the lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const sentAt = this.opts.clock.now();
    const me = this.opts.identity;
    const current = await this.bounded(this.opts.store.get());
    if (current === 'timeout') return false;
    // The time written is taken once the read has answered, just before the write: a read slowed
    // down (a loaded API server) must not stamp an acquisition with a time from before the old
    // holder's last renewal. The renew deadline still counts from sentAt, the earlier instant.
    const wall = microTime((this.opts.wallNow ?? (() => new Date()))());
    const leaseDurationSeconds = Math.ceil(this.timing.leaseDurationMs / 1000);
    if (!current) {
      if (this.draining) return false;
      const res = await this.bounded(
        this.opts.store.create({
          holderIdentity: me,
          leaseDurationSeconds,
          acquireTime: wall,
          renewTime: wall,
          leaseTransitions: 0,
        }),
      );
      return res !== 'timeout' && res.ok && this.accept(res.lease, sentAt);
    }
    this.observe(current);
    const rec = current.record;
    const mine = rec.holderIdentity === me;
    if (!mine && this.leading)
      this.loseLeadership(`the lease is held by ${rec.holderIdentity || 'nobody'}`);
    // the last term's work still stops: holding the Lease now would block every standby while
    // this replica's own start waits behind that stop, so the Lease is left to expire instead
    if (this.draining && !this.leading) return false;
    if (!mine && rec.holderIdentity !== '') {
      const expiresAt = this.observedAt + rec.leaseDurationSeconds * 1000;
      if (this.opts.clock.now() < expiresAt) return false;
    }
    const next: LeaseRecord = {
      holderIdentity: me,
      leaseDurationSeconds,
      acquireTime: mine ? rec.acquireTime : wall,
      renewTime: wall,
      leaseTransitions: mine ? rec.leaseTransitions : rec.leaseTransitions + 1,
    };
    const res = await this.bounded(this.opts.store.update(next, current.resourceVersion));
    return res !== 'timeout' && res.ok && this.accept(res.lease, sentAt);
  }

  /** A write sent at `sentAt` succeeded: lead until sentAt + renewDeadline. */
  private accept(lease: ObservedLease, sentAt: number): boolean {
    this.observe(lease);
    const deadline = sentAt + this.timing.renewDeadlineMs;
    const left = deadline - this.opts.clock.now();
    if (left <= 0 || this.stopped) return false;
    if (this.deadlineTimer !== undefined) this.opts.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = this.opts.clock.setTimeout(
      () => this.loseLeadership('renewal failed until renewDeadline'),
      left,
    );
    if (!this.leading) {
      this.leading = true;
      this.term = new AbortController();
      void this.enqueue(() => this.opts.onStartedLeading());
    }
    return true;
  }

  private loseLeadership(reason: string, notify = true): void {
    if (this.deadlineTimer !== undefined) this.opts.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    if (!this.leading || !this.term) return;
    this.leading = false;
    const term = this.term;
    term.abort(new Error(reason));
    if (!notify) return;
    const stopped = this.enqueue(() => this.opts.onStoppedLeading(term.signal, reason));
    this.draining = stopped;
    void stopped.then(() => {
      if (this.draining === stopped) this.draining = undefined;
    });
  }

  private async release(): Promise<{ ok: boolean; reason?: string }> {
    const current = this.observed;
    if (!current || current.record.holderIdentity !== this.opts.identity)
      return { ok: false, reason: 'the Lease no longer names this replica' };
    const wall = microTime((this.opts.wallNow ?? (() => new Date()))());
    const res = await this.bounded(
      this.opts.store.update(
        {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: wall,
          renewTime: wall,
          leaseTransitions: current.record.leaseTransitions,
        },
        current.resourceVersion,
      ),
    ).catch((e: unknown) => ({ ok: false as const, reason: (e as Error).message }));
    if (res === 'timeout') return { ok: false, reason: 'no answer within renewDeadline' };
    if (!res.ok) return { ok: false, reason: res.reason };
    this.observe(res.lease);
    return { ok: true };
  }

  /** Notes a record; the expiry clock restarts only when the record changed. */
  private observe(lease: ObservedLease): void {
    if (this.observed && sameRecord(this.observed.record, lease.record)) {
      this.observed = lease;
      return;
    }
    this.observed = lease;
    this.observedAt = this.opts.clock.now();
    this.opts.onObserved?.({
      holder: lease.record.holderIdentity,
      renewTime: lease.record.renewTime,
      observedAt: this.observedAt,
    });
  }

  /** Runs leadership callbacks one after another, in the order the transitions happened. */
  private enqueue(fn: () => void | Promise<void>): Promise<void> {
    this.chain = this.chain.then(fn).catch(() => undefined);
    return this.chain;
  }

  /** An API call limited to renewDeadline (a hung call must not stall the loop forever). */
  private bounded<T>(p: Promise<T>): Promise<T | 'timeout'> {
    return new Promise((resolve, reject) => {
      const timer = this.opts.clock.setTimeout(
        () => resolve('timeout'),
        this.timing.renewDeadlineMs,
      );
      p.then(
        (v) => (this.opts.clock.clearTimeout(timer), resolve(v)),
        (e: unknown) => {
          this.opts.clock.clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }
}
