import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chartSettings } from './chart.js';
import { distribution, isFinite, roundMeasure, single } from './measures.js';

const root = fileURLToPath(new URL('../../../../../', import.meta.url));

describe('bench measures', () => {
  it('reports a distribution as its median with nearest-rank percentiles', () => {
    const samples = Array.from({ length: 100 }, (_, i) => 100 - i);
    const m = distribution('x', 'ms', samples, 1000);
    expect(m).toMatchObject({
      value: 50,
      median: 50,
      min: 1,
      p95: 95,
      p99: 99,
      max: 100,
      n: 100,
      size: 1000,
    });
  });

  it('refuses a distribution without samples, and tells finite from not', () => {
    expect(() => distribution('x', 'ms', [], 1)).toThrow(/x: no samples/);
    expect(isFinite(single('x', 'ms', 1.5, 10))).toBe(true);
    expect(isFinite(single('x', 'ms', Number.NaN, 10))).toBe(false);
    expect(roundMeasure(single('r', 'ratio', 1.23456, 1)).value).toBe(1.235);
  });
});

describe('chart settings', () => {
  it("reads the sidecar's reload delay and the controller's limit from the chart's values", () => {
    const s = chartSettings(root);
    // the real sidecar counts whole seconds
    expect(s.reloadDelayMs % 1000).toBe(0);
    expect(s.controllerMemoryLimit).toBeGreaterThan(0);
    expect(Object.keys(s.reconcile)).toContain('debounce');
    expect(Object.keys(s.dataplane)).toContain('minDeploymentInterval');
  });
});
