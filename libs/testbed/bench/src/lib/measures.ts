import type { Figure } from './figures.js';

/** A unit of a bench figure. */
export type Unit = 'ms' | 'ratio' | 'bytes' | 'count' | 'requests';

/**
 * One figure of `haptic bench`: `value` in `unit` from `n` samples (the median when there are
 * several), at `size` (the scenario's Ingresses); a distribution also carries min/median/p95/p99.
 */
export interface Measure {
  readonly name: string;
  readonly value: number;
  readonly unit: Unit;
  readonly n: number;
  readonly size: number;
  readonly min?: number;
  readonly median?: number;
  readonly p95?: number;
  readonly p99?: number;
  readonly max?: number;
}

/** Nearest-rank percentile of sorted samples. */
function rank(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A distribution of samples: value = median, with min/p95/p99/max. */
export function distribution(
  name: string,
  unit: Unit,
  samples: readonly number[],
  size: number,
): Measure {
  if (samples.length === 0) throw new RangeError(`${name}: no samples`);
  const s = [...samples].sort((a, b) => a - b);
  const median = rank(s, 50);
  return {
    name,
    value: median,
    unit,
    n: s.length,
    size,
    min: s[0]!,
    median,
    p95: rank(s, 95),
    p99: rank(s, 99),
    max: s[s.length - 1]!,
  };
}

/** One value measured (or counted) `n` times in total. */
export function single(name: string, unit: Unit, value: number, size: number, n = 1): Measure {
  return { name, value, unit, n, size };
}

/**
 * The measure of one of the lib's render/memory `Figure`s (its `n` is the size): `reps` is how
 * many runs its value is the median of.
 */
export function fromFigure(f: Figure, reps: number, prefix = ''): Measure {
  const timed = f.unit === 'ms';
  return single(`${prefix}${f.name}`, f.unit, f.value, f.n, timed ? reps : 1);
}

/** Every numeric field of a measure is finite (what the rot test checks). */
export function isFinite(m: Measure): boolean {
  const values = [m.value, m.n, m.size, m.min, m.median, m.p95, m.p99, m.max];
  return values.every((v) => v === undefined || Number.isFinite(v));
}

/** Rounds for printing: ms to 0.1, ratios to 0.001, others whole. */
export function roundMeasure(m: Measure): Measure {
  const digits = m.unit === 'ratio' ? 1000 : m.unit === 'ms' ? 10 : 1;
  const r = (v: number | undefined) =>
    v === undefined ? undefined : Math.round(v * digits) / digits;
  const out: Record<string, unknown> = { ...m, value: r(m.value) };
  for (const k of ['min', 'median', 'p95', 'p99', 'max'] as const)
    if (m[k] !== undefined) out[k] = r(m[k]);
  return out as unknown as Measure;
}
