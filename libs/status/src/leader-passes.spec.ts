import { SchedulerRegistry } from '@nestjs/schedule';
import { describe, expect, it } from 'vitest';
import { LeaderPasses } from './leader-passes.js';

/** A pass that waits until released, counting its runs and the terms it saw. */
function gatedPasses(scheduler = new SchedulerRegistry()) {
  const terms: AbortSignal[] = [];
  let release: () => void = () => undefined;
  const passes = new LeaderPasses(scheduler, 'test-resync', 60_000, (term) => {
    terms.push(term);
    return new Promise<void>((r) => (release = r));
  });
  return { passes, terms, scheduler, release: () => release() };
}

describe('LeaderPasses', () => {
  it('runs one pass at a time and one more for any requests during it', async () => {
    const { passes, terms, release } = gatedPasses();
    passes.start();
    passes.request();
    passes.request();
    expect(terms).toHaveLength(1);
    release();
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(terms).toHaveLength(2); // the two requests ran as one more pass
    release();
    await passes.settled();
    expect(terms).toHaveLength(2);
  });

  it('keeps the resync in the SchedulerRegistry while leading, and runs nothing after stop', async () => {
    const { passes, terms, scheduler, release } = gatedPasses();
    passes.start();
    expect(scheduler.doesExist('interval', 'test-resync')).toBe(true);
    const deadline = new AbortController();
    passes.stop(deadline.signal);
    expect(scheduler.doesExist('interval', 'test-resync')).toBe(false);
    expect(passes.leading).toBe(false);
    passes.request();
    deadline.abort();
    expect(terms[0]?.aborted).toBe(true); // the pass in flight sees its term end
    await passes.drained(deadline.signal);
    release();
    await passes.settled();
    expect(terms).toHaveLength(1);
  });

  it('gives each term a fresh signal, aborted at once by an already-aborted deadline', () => {
    const { passes, terms, release } = gatedPasses();
    passes.start();
    passes.stop(AbortSignal.abort());
    expect(terms[0]?.aborted).toBe(true);
    release();
    return passes.settled().then(() => {
      passes.start();
      expect(terms[1]?.aborted).toBe(false);
      passes.stop();
    });
  });
});
