import { describe, expect, it } from 'vitest';
import { FakeClock } from '#testbed/testing';
import { LeaderElector, microTime, timingProblem, type ElectionTiming } from './elector.js';
import type { LeaseStore } from './lease-store.js';
import { MemoryLease } from './memory-lease-store.js';

const TIMING: ElectionTiming = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

interface Replica {
  readonly elector: LeaderElector;
  readonly log: string[];
  /** Whether its work runs (started and not stopped). */
  working: boolean;
  reachable: boolean;
  /** Whether the last stop had to abandon in-flight work (its deadline had passed). */
  lastStopAbandoned?: boolean;
}

function replica(name: string, lease: MemoryLease, clock: FakeClock, timing = TIMING): Replica {
  const r: Replica = { log: [], working: false, reachable: true } as unknown as Replica;
  const elector = new LeaderElector({
    identity: name,
    clock,
    // each replica's wall clock is wildly off: it must not matter
    wallNow: () => new Date(Date.UTC(2020, 0, 1) + (name === 'a' ? 0 : 3_600_000) + clock.now()),
    store: lease.storeFor(name, () => r.reachable),
    timing,
    onStartedLeading: () => {
      r.working = true;
      r.log.push(`start@${clock.now()}`);
    },
    onStoppedLeading: (deadline, reason) => {
      r.working = false;
      r.lastStopAbandoned = deadline.aborted;
      r.log.push(`stop@${clock.now()}:${reason}`);
    },
  });
  Object.assign(r, { elector });
  return r;
}

/** Replica a started (and leading) 1 ms before replica b, on one lease and clock. */
async function leaderAndStandby(): Promise<{
  clock: FakeClock;
  lease: MemoryLease;
  a: Replica;
  b: Replica;
}> {
  const clock = new FakeClock();
  const lease = new MemoryLease();
  const a = replica('a', lease, clock);
  const b = replica('b', lease, clock);
  a.elector.start();
  await clock.advance(1);
  b.elector.start();
  return { clock, lease, a, b };
}

describe('LeaderElector', () => {
  it('the first replica takes a missing lease at once; the second stays standby', async () => {
    const { clock, lease, a, b } = await leaderAndStandby();
    await clock.advance(60_000);
    expect(a.log).toEqual(['start@0']);
    expect(b.log).toEqual([]);
    expect(lease.lease?.record).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
    // renewed every retryPeriod, always naming the version read
    expect(lease.history.length).toBeGreaterThanOrEqual(30);
    expect(lease.history.every((h) => h.writer === 'a')).toBe(true);
  });

  it('a standby takes over only a full leaseDuration after it last saw the record change', async () => {
    const { clock, lease, a, b } = await leaderAndStandby();
    await clock.advance(5_000);
    a.reachable = false; // a is cut off: its renewals fail from now on
    const cut = clock.now();
    const lastRenewByA = lease.history.at(-1)!;
    await clock.advance(30_000);
    const stopA = Number(/stop@(\d+)/.exec(a.log.at(-1)!)![1]);
    const startB = Number(/start@(\d+)/.exec(b.log[0]!)![1]);
    // a stops within renewDeadline of its last successful renewal (sent at most a retryPeriod before the cut)
    expect(stopA).toBeLessThanOrEqual(cut + TIMING.renewDeadlineMs);
    expect(stopA).toBeGreaterThan(cut + TIMING.renewDeadlineMs - TIMING.retryPeriodMs - 1);
    // b waits a whole leaseDuration after it saw a's last renewal, whatever a's clock said
    expect(startB - stopA).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.renewDeadlineMs);
    expect(startB).toBeGreaterThanOrEqual(cut - TIMING.retryPeriodMs + TIMING.leaseDurationMs);
    expect(a.lastStopAbandoned).toBe(true); // renewal failed: in-flight work is abandoned
    expect(a.log.at(-1)).toContain('renewal failed until renewDeadline');
    const taken = lease.history.find((h) => h.writer === 'b')!;
    expect(taken.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(lease.history.indexOf(taken)).toBe(lease.history.indexOf(lastRenewByA) + 1);
  });

  it('stamps acquireTime after its read: a slow read never dates a take-over before the lease of the old holder ran out', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const wallNow = () => new Date(Date.UTC(2020, 0, 1) + clock.now());
    const quiet = { onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    let aReachable = true;
    const a = new LeaderElector({
      identity: 'a',
      clock,
      wallNow,
      store: lease.storeFor('a', () => aReachable),
      timing: TIMING,
      ...quiet,
    });
    // once a is cut off, b's reads answer 9 s late (a loaded API server; within renewDeadline)
    let slow = false;
    const plain = lease.storeFor('b');
    const slowRead: LeaseStore = {
      ...plain,
      get: async () => {
        const seen = await plain.get();
        if (slow) await new Promise<void>((r) => clock.setTimeout(() => r(), 9_000));
        return seen;
      },
    };
    const b = new LeaderElector({
      identity: 'b',
      clock,
      wallNow,
      store: slowRead,
      timing: TIMING,
      ...quiet,
    });
    a.start();
    await clock.advance(1);
    b.start();
    await clock.advance(20_000);
    aReachable = false;
    await clock.advance(1_000); // b has seen a's last renewal with a fast read
    slow = true;
    await clock.advance(60_000);
    const lastByA = lease.history.filter((h) => h.writer === 'a').at(-1)!.record;
    const taken = lease.history.find((h) => h.writer === 'b')!.record;
    expect(Date.parse(taken.acquireTime) - Date.parse(lastByA.renewTime)).toBeGreaterThanOrEqual(
      TIMING.leaseDurationMs,
    );
  });

  it('never has two working leaders, at any instant, across cut-offs and reconnections', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const rs = ['a', 'b', 'c'].map((n) => replica(n, lease, clock));
    for (const r of rs) r.elector.start();
    let leaders = 0;
    for (let step = 0; step < 600; step++) {
      // a deterministic pattern of outages
      for (const [i, r] of rs.entries()) r.reachable = (step + i * 33) % 100 < 50;
      await clock.advance(500);
      const working = rs.filter((r) => r.working).length;
      expect(working).toBeLessThanOrEqual(1);
      leaders += working;
    }
    expect(leaders).toBeGreaterThan(100); // someone leads most of the time
    expect(new Set(lease.history.map((h) => h.writer)).size).toBeGreaterThanOrEqual(2); // leadership moved
  });

  it('a write conflict (someone else wrote first) does not make a leader', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const a = replica('a', lease, clock);
    const store = lease.storeFor('intruder');
    await store.create({
      holderIdentity: 'x',
      leaseDurationSeconds: 15,
      acquireTime: 't',
      renewTime: 't',
      leaseTransitions: 0,
    });
    const stale = lease.lease!;
    const original = lease.storeFor('a');
    // a reads, then x renews before a writes: a's write names the old version and is refused
    let first = true;
    const racing = new LeaderElector({
      identity: 'a',
      clock,
      store: {
        get: () => Promise.resolve(stale),
        create: (r) => original.create(r),
        update: async (r, rv) => {
          if (first) {
            first = false;
            await store.update({ ...stale.record, renewTime: 't2' }, stale.resourceVersion);
          }
          return original.update(r, rv);
        },
      },
      timing: TIMING,
      onStartedLeading: () => void a.log.push('started'),
      onStoppedLeading: () => undefined,
    });
    expect(await racing.tryAcquireOrRenew()).toBe(false); // x's record is fresh: wait
    await clock.advance(20_000); // unchanged for a leaseDuration: a may take it over...
    expect(await racing.tryAcquireOrRenew()).toBe(false); // ...but x renewed first: conflict
    expect(first).toBe(false);
    expect(lease.lease?.record.holderIdentity).toBe('x');
    expect(a.log).toEqual([]);
  });

  it('on stop, the leader stops its work while still holding the lease, then releases it', async () => {
    const { clock, lease, a, b } = await leaderAndStandby();
    await clock.advance(3_000);
    expect(await a.elector.stop()).toEqual({ held: true, release: { ok: true } });
    expect(a.lastStopAbandoned).toBe(false); // graceful: in-flight work could finish
    expect(lease.lease?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    const released = clock.now();
    await clock.advance(TIMING.retryPeriodMs);
    expect(b.log).toEqual([`start@${Number(/start@(\d+)/.exec(b.log[0] ?? 'start@-1')![1])}`]);
    const startB = Number(/start@(\d+)/.exec(b.log[0]!)![1]);
    expect(startB - released).toBeLessThanOrEqual(TIMING.retryPeriodMs);
    expect(lease.lease?.record).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
  });

  it('says so when the release is refused (API gone at shutdown): the Lease names the leader until it expires', async () => {
    const { clock, lease, a, b } = await leaderAndStandby();
    await clock.advance(3_000);
    a.reachable = false;
    const outcome = await a.elector.stop();
    expect(outcome).toMatchObject({ held: true, release: { ok: false } });
    expect(outcome.release?.reason).toMatch(/a: API unreachable/);
    expect(lease.lease?.record.holderIdentity).toBe('a');
    expect(await b.elector.stop()).toEqual({ held: false }); // a standby had nothing to release
  });

  it('a lease taken by another replica ends leadership at once', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const a = replica('a', lease, clock);
    a.elector.start();
    await clock.advance(1);
    const current = lease.lease!;
    await lease
      .storeFor('x')
      .update(
        { ...current.record, holderIdentity: 'x', renewTime: 'later' },
        current.resourceVersion,
      );
    await clock.advance(TIMING.retryPeriodMs);
    expect(a.working).toBe(false);
    expect(a.log.at(-1)).toContain('held by x');
  });

  it('a replica whose last term has not stopped yet does not renew: a standby takes over', async () => {
    // a flap (renewals failing past renewDeadline, then the API back) while the leader-only work
    // of the ended term is still stopping: renewing then would hold the Lease with no work
    // running (its start waits behind the stop) and no standby could ever take it
    const clock = new FakeClock();
    const lease = new MemoryLease();
    let releaseStop: () => void = () => undefined;
    const log: string[] = [];
    let reachable = true;
    const a = new LeaderElector({
      identity: 'a',
      clock,
      store: lease.storeFor('a', () => reachable),
      timing: TIMING,
      onStartedLeading: () => void log.push(`start@${clock.now()}`),
      onStoppedLeading: () => {
        log.push(`stop@${clock.now()}`);
        return new Promise<void>((resolve) => (releaseStop = resolve));
      },
    });
    const b = replica('b', lease, clock);
    a.start();
    await clock.advance(1);
    b.elector.start();
    await clock.advance(3_000);
    reachable = false;
    await clock.advance(TIMING.renewDeadlineMs); // a's renewals fail until its deadline
    expect(log).toEqual(['start@0', expect.stringMatching(/^stop@/)]);
    const writesByA = lease.history.filter((h) => h.writer === 'a').length;
    reachable = true; // back before the lease expired for b; a's stop is still running
    await clock.advance(TIMING.leaseDurationMs + 2 * TIMING.retryPeriodMs);
    expect(lease.history.filter((h) => h.writer === 'a')).toHaveLength(writesByA);
    expect(a.isLeader).toBe(false);
    expect(lease.lease?.record.holderIdentity).toBe('b');
    expect(b.working).toBe(true);
    // once a's work has stopped it campaigns again, as a standby of b
    releaseStop();
    await clock.advance(10 * TIMING.retryPeriodMs);
    expect(log).toHaveLength(2);
    expect(lease.lease?.record.holderIdentity).toBe('b');
    expect(b.working).toBe(true);
  });

  it('refuses timings where the leader could outlive its lease', () => {
    expect(
      timingProblem({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 }),
    ).toMatch(/leaseDuration must be greater than renewDeadline/);
    expect(
      timingProblem({ leaseDurationMs: 15_000, renewDeadlineMs: 2_000, retryPeriodMs: 2_000 }),
    ).toMatch(/renewDeadline must be greater than retryPeriod/);
    expect(timingProblem(TIMING)).toBeUndefined();
    expect(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)))).toBe(
      '2026-01-02T03:04:05.678000Z',
    );
  });
});
