import { FakeClock } from '#testbed/testing';
import { describe, expect, it } from 'vitest';
import { ReconcileScheduler, type ReconcileBatch } from './reconcile-scheduler.js';

function setup(runMs = 0, debounceMs = 100, maxDelayMs = 1000) {
  const clock = new FakeClock(0);
  const runs: (ReconcileBatch & { at: number })[] = [];
  const scheduler = new ReconcileScheduler({
    debounceMs,
    maxDelayMs,
    clock,
    run: async (batch) => {
      runs.push({ ...batch, at: clock.now() });
      if (runMs > 0) await new Promise<void>((r) => clock.setTimeout(r, runMs));
    },
  });
  return { clock, runs, scheduler };
}

describe('ReconcileScheduler (fake clock)', () => {
  it('renders a lone change at once (leading edge)', async () => {
    const { clock, runs, scheduler } = setup();
    await clock.advance(5000);
    scheduler.trigger('ingress default/a');
    await clock.advance(0);
    expect(runs).toEqual([
      { reasons: ['ingress default/a'], triggers: 1, firstAt: 5000, ids: [], at: 5000 },
    ]);
    await clock.advance(10_000);
    expect(runs).toHaveLength(1);
  });

  it('renders a change that finds it idle at once, however soon after the last run', async () => {
    const { clock, runs, scheduler } = setup();
    scheduler.trigger('first');
    await clock.advance(0);
    await clock.advance(9);
    scheduler.trigger('second'); // 9 ms later, inside the old debounce window: no fixed wait
    await clock.advance(0);
    expect(runs.map((r) => [r.at, r.reasons])).toEqual([
      [0, ['first']],
      [9, ['second']],
    ]);
  });

  it('coalesces what arrives during a run, debounced after the last change of the burst', async () => {
    const { clock, runs, scheduler } = setup(50);
    scheduler.trigger('first');
    await clock.advance(0);
    expect(runs).toHaveLength(1);
    for (let i = 0; i < 10; i++) {
      await clock.advance(9);
      scheduler.trigger(`burst ${i}`);
    }
    await clock.advance(5000);
    expect(runs).toHaveLength(2);
    expect(runs[1]!.triggers).toBe(10);
    expect(runs[1]!.at).toBe(90 + 100); // the trailing edge: debounce after the last change
  });

  it('with no debounce, starts the coalesced run as soon as the run ends', async () => {
    const { clock, runs, scheduler } = setup(50, 0);
    scheduler.trigger('a');
    await clock.advance(10);
    scheduler.trigger('b');
    await clock.advance(10);
    scheduler.trigger('c');
    await clock.advance(5000);
    expect(runs.map((r) => [r.at, r.reasons])).toEqual([
      [0, ['a']],
      [50, ['b', 'c']],
    ]);
  });

  it('hands each run the ids of the triggers it covers (de-duplicated, bounded)', async () => {
    const clock = new FakeClock(0);
    const ids: (readonly string[])[] = [];
    const scheduler = new ReconcileScheduler({
      debounceMs: 0,
      maxDelayMs: 1000,
      maxIds: 3,
      clock,
      run: async (batch) => {
        ids.push(batch.ids);
        await new Promise<void>((r) => clock.setTimeout(r, 100));
      },
    });
    scheduler.trigger('x', 'id-0');
    for (const id of ['id-1', 'id-2', 'id-1', 'id-3', 'id-4']) scheduler.trigger('y', id);
    scheduler.trigger('z');
    await clock.advance(1000);
    expect(ids).toEqual([['id-0'], ['id-1', 'id-2', 'id-3']]);
  });

  it('never lets a change in a steady stream wait longer than maxDelay', async () => {
    const { clock, runs, scheduler } = setup(200);
    const triggeredAt: number[] = [];
    for (let t = 0; t < 10_000; t += 50) {
      scheduler.trigger('stream');
      triggeredAt.push(clock.now());
      await clock.advance(50);
    }
    await clock.advance(5000);
    const starts = runs.map((r) => r.at);
    for (const t of triggeredAt) {
      const served = starts.find((s) => s >= t)!;
      expect(served - t).toBeLessThanOrEqual(1000);
    }
    expect(runs.length).toBeLessThan(triggeredAt.length / 5); // and it still coalesces
    expect(runs.reduce((n, r) => n + r.triggers, 0)).toBe(triggeredAt.length); // nothing lost
  });

  it('never overlaps runs; changes during a run are covered by one run right after it', async () => {
    const { clock, runs, scheduler } = setup(500);
    scheduler.trigger('a');
    await clock.advance(10);
    for (const r of ['b', 'c', 'd']) {
      scheduler.trigger(r);
      await clock.advance(10);
    }
    await clock.advance(5000);
    expect(runs.map((r) => [r.at, r.reasons])).toEqual([
      [0, ['a']],
      [500, ['b', 'c', 'd']],
    ]);
  });

  it('stops scheduling after stop()', async () => {
    const { clock, runs, scheduler } = setup(50);
    scheduler.trigger('a');
    await clock.advance(10);
    scheduler.trigger('b'); // during the run: would run after it
    const stopped = scheduler.stop();
    await clock.advance(5000);
    await stopped;
    expect(runs).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });
});
