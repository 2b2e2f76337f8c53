import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { EventBus, currentEvent } from './event-bus.js';
import type { SlowSubscriberReport } from './fact-subscription.js';

interface Facts {
  'a.happened': { readonly n: number };
  'b.happened': { readonly from: number };
  'c.happened': { readonly from: number };
}
interface States {
  'leader.status': { readonly isLeader: boolean };
}

const newBus = (opts: ConstructorParameters<typeof EventBus>[0] = {}) =>
  new EventBus<Facts, States>(opts);

describe('EventBus facts', () => {
  it('delivers facts to each subscriber in publish order', async () => {
    const bus = newBus();
    await bus.start();
    const seen: number[][] = [[], []];
    bus.subscribe('a.happened', async (e) => {
      if (e.payload.n % 7 === 0) await tick();
      seen[0]!.push(e.payload.n);
    });
    bus.subscribe('a.happened', (e) => void seen[1]!.push(e.payload.n));
    for (let n = 0; n < 500; n++) await bus.publish('a.happened', { n });
    await bus.idle();
    const expected = Array.from({ length: 500 }, (_, n) => n);
    expect(seen[0]).toEqual(expected);
    expect(seen[1]).toEqual(expected);
  });

  it('keeps order among concurrent publishers blocked by a full queue', async () => {
    const bus = newBus({ queueCapacity: 2 });
    await bus.start();
    const seen: number[] = [];
    bus.subscribe('a.happened', async (e) => {
      await tick();
      seen.push(e.payload.n);
    });
    await Promise.all(Array.from({ length: 50 }, (_, n) => bus.publish('a.happened', { n })));
    await bus.idle();
    expect(seen).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });

  it('buffers facts published before start() until subscribers are registered', async () => {
    const bus = newBus();
    const early = bus.publish('a.happened', { n: 1 });
    const seen: number[] = [];
    bus.subscribe('a.happened', (e) => void seen.push(e.payload.n));
    await bus.start();
    await early;
    await bus.publish('a.happened', { n: 2 });
    await bus.idle();
    expect(seen).toEqual([1, 2]);
  });

  it('runs handlers under the event without its payload (async resources do not keep payloads alive)', async () => {
    const bus = newBus();
    await bus.start();
    const seen: unknown[] = [];
    bus.subscribe('a.happened', async () => {
      await tick();
      seen.push(currentEvent());
    });
    const e = await bus.publish('a.happened', { n: 7 });
    await bus.idle();
    expect(seen).toEqual([
      { seq: e.seq, topic: 'a.happened', correlationId: e.correlationId, at: e.at },
    ]);
    expect(currentEvent()).toBeUndefined();
  });

  it('carries the correlation id from a trigger through two hops', async () => {
    const bus = newBus({
      newCorrelationId: (() => {
        let i = 0;
        return () => `corr-${++i}`;
      })(),
    });
    await bus.start();
    const hops: { topic: string; correlationId: string; causedBy?: number }[] = [];
    bus.subscribe('a.happened', async (e) => {
      hops.push(e);
      await bus.publish('b.happened', { from: e.payload.n }); // no explicit cause: inherited
    });
    bus.subscribe('b.happened', async (e) => {
      hops.push(e);
      await tick(); // crossing an async boundary keeps the context
      await bus.publish('c.happened', { from: e.payload.from });
    });
    bus.subscribe('c.happened', (e) => void hops.push(e));
    const trigger = await bus.publish('a.happened', { n: 1 });
    await bus.publish('a.happened', { n: 2 }); // an unrelated trigger gets its own id
    await bus.idle();
    await bus.idle();
    const first = hops.filter((h) => h.correlationId === trigger.correlationId);
    expect(first.map((h) => h.topic)).toEqual(['a.happened', 'b.happened', 'c.happened']);
    expect(first[1]!.causedBy).toBe(trigger.seq);
    expect(new Set(hops.map((h) => h.correlationId)).size).toBe(2);
  });

  it('reports a handler error and keeps delivering', async () => {
    const errors: string[] = [];
    const bus = newBus({ onHandlerError: (err) => errors.push(String(err)) });
    await bus.start();
    const seen: number[] = [];
    bus.subscribe('a.happened', (e) => {
      if (e.payload.n === 1) throw new Error('boom');
      seen.push(e.payload.n);
    });
    for (const n of [0, 1, 2]) await bus.publish('a.happened', { n });
    await bus.idle();
    expect(seen).toEqual([0, 2]);
    expect(errors).toEqual(['Error: boom']);
  });

  it('keeps a bounded history of recent events', async () => {
    const bus = newBus({ historySize: 3 });
    await bus.start();
    for (let n = 0; n < 10; n++) await bus.publish('a.happened', { n });
    expect(bus.history().map((e) => (e.payload as { n: number }).n)).toEqual([7, 8, 9]);
  });

  it('passes 100,000 events through a deliberately slow subscriber: nothing lost, memory bounded', async () => {
    const slow: SlowSubscriberReport[] = [];
    const bus = newBus({
      queueCapacity: 256,
      historySize: 100,
      slowAfterMs: 50,
      onSlowSubscriber: (r) => slow.push(r),
    });
    await bus.start();
    let received = 0;
    let sum = 0;
    let maxQueued = 0;
    bus.subscribe(
      'a.happened',
      async (e) => {
        received++;
        sum += e.payload.n;
        if (received % 1000 === 0)
          await new Promise((r) => setTimeout(r, 1)); // slower than the publisher
        else await tick();
      },
      { name: 'slow' },
    );
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const started = performance.now();
    const total = 100_000;
    for (let n = 0; n < total; n++) {
      await bus.publish('a.happened', { n });
      if (n % 5000 === 0) {
        maxQueued = Math.max(maxQueued, bus.stats()[0]!.queued);
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      }
    }
    await bus.idle();
    const ms = performance.now() - started;
    expect(received).toBe(total);
    expect(sum).toBe((total * (total - 1)) / 2);
    expect(maxQueued).toBeLessThanOrEqual(256);
    // Bounded: a queue of 256 small events; an unbounded queue of 100,000 would need well over 10 MB.
    expect(heapPeak - heapBefore).toBeLessThan(32 * 1024 * 1024);
    console.log(
      `[bus] 100000 events via slow subscriber: ${ms.toFixed(0)} ms, heap growth peak ${((heapPeak - heapBefore) / 1048576).toFixed(1)} MiB, max queued ${maxQueued}, slow reports ${slow.length}`,
    );
  }, 120_000);
});

describe('EventBus state', () => {
  it('hands a late subscriber the current value at once', async () => {
    const bus = newBus();
    await bus.start();
    bus.setState('leader.status', { isLeader: false });
    bus.setState('leader.status', { isLeader: true });
    const seen: boolean[] = [];
    bus.subscribeState('leader.status', (e) => void seen.push(e.payload.isLeader));
    await bus.idle();
    expect(seen).toEqual([true]);
    expect(bus.getState('leader.status')).toEqual({ isLeader: true });
  });

  it('coalesces values a busy subscriber has not taken yet, and says how many it skipped', async () => {
    const bus = newBus();
    await bus.start();
    const seen: { v: boolean; skipped: number }[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    bus.subscribeState('leader.status', async (e, info) => {
      seen.push({ v: e.payload.isLeader, skipped: info.skipped });
      if (seen.length === 1) await gate;
    });
    bus.setState('leader.status', { isLeader: false });
    await tick();
    bus.setState('leader.status', { isLeader: true });
    bus.setState('leader.status', { isLeader: false });
    bus.setState('leader.status', { isLeader: true });
    release();
    await bus.idle();
    expect(seen).toEqual([
      { v: false, skipped: 0 },
      { v: true, skipped: 2 },
    ]);
  });
});
