import { describe, expect, it } from 'vitest';
import type { HapticBus } from '#events';
import { LivenessService } from './liveness.service.js';

const busWith = (queued: () => number) =>
  ({
    stats: () => [
      {
        topic: 'render.completed',
        kind: 'fact',
        subscribers: 1,
        queued: queued(),
        blockedPublishers: 0,
        slowReports: 0,
      },
    ],
  }) as unknown as HapticBus;

describe('LivenessService', () => {
  it('reports a topic that keeps events queued for two minutes, and recovers when it drains', () => {
    let queued = 3;
    const live = new LivenessService(busWith(() => queued));
    live.sample(0);
    live.sample(60_000);
    expect(live.problem(60_000)).toBeUndefined();
    live.sample(125_000);
    expect(live.problem(125_000)).toMatch(/not draining .*render\.completed/);
    queued = 0;
    live.sample(130_000);
    expect(live.problem(130_000)).toBeUndefined();
  });

  it('does not call a topic stalled when it drained between samples', () => {
    let queued = 2;
    const live = new LivenessService(busWith(() => queued));
    live.sample(0);
    queued = 0;
    live.sample(5_000);
    queued = 2;
    live.sample(125_000);
    expect(live.problem(125_000)).toBeUndefined();
  });
});
