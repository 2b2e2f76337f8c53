import { describe, expect, it } from 'vitest';
import type { ChangeStagesSeen } from './cluster.js';
import { lastAppliedPerChange, stageMedians } from './change-stages.js';

const rec = (id: string, receivedAt: string, applied: number, render = 1): ChangeStagesSeen => ({
  correlationId: id,
  receivedAt,
  outcome: 'applied',
  stagesMs: { render, applied },
  pods: [],
});

describe('lastAppliedPerChange', () => {
  it('keeps, per change, the record applied last (a Service, its slice, then its Ingress)', () => {
    const starts = ['2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z'];
    const picked = lastAppliedPerChange(
      [
        rec('svc-1', '2026-01-01T00:00:01.010Z', 40),
        rec('ing-1', '2026-01-01T00:00:01.030Z', 900),
        rec('slice-1', '2026-01-01T00:00:01.020Z', 60),
        rec('svc-2', '2026-01-01T00:00:02.010Z', 30),
        rec('ing-2', '2026-01-01T00:00:02.050Z', 800),
        rec('before', '2026-01-01T00:00:00.500Z', 5000),
      ],
      starts,
    );
    // the Ingresses' records: render 1 each, seen 30 and 50 ms after their change began
    expect(picked.map((c) => c['watch'])).toEqual([30, 50]);
    expect(picked.map((c) => c['applied'])).toEqual([900, 800]);
  });

  it('prefers the earlier change when one deployment applied both (a status write after it)', () => {
    const picked = lastAppliedPerChange(
      [
        rec('status', '2026-01-01T00:00:01.040Z', 660, 2),
        rec('ing', '2026-01-01T00:00:01.000Z', 700, 20),
      ],
      ['2026-01-01T00:00:01.000Z'],
    );
    expect(picked.map((c) => c['render'])).toEqual([20]);
  });

  it('gives the stage medians of the chosen records only', () => {
    const starts = ['2026-01-01T00:00:01.000Z'];
    const picked = lastAppliedPerChange(
      [rec('a', '2026-01-01T00:00:01.001Z', 10, 7), rec('b', '2026-01-01T00:00:01.002Z', 500, 300)],
      starts,
    );
    const render = stageMedians('k', picked, 1).find((m) => m.name === 'latency.k.stage.render');
    expect(render?.value).toBe(300);
  });
});
