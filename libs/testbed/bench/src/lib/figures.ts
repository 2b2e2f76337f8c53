/** One measured figure: `value` in `unit`, at `n` (the scenario's size, e.g. Ingresses). */
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: 'ms' | 'ratio' | 'bytes' | 'count';
  readonly n: number;
}

/** The median of some samples (the mean of the middle two for an even count). */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError('median of no samples');
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Rounds a figure's value for printing (ms to 0.1, ratios to 0.001). */
export function rounded(f: Figure): Figure {
  const digits = f.unit === 'ratio' ? 1000 : f.unit === 'ms' ? 10 : 1;
  return { ...f, value: Math.round(f.value * digits) / digits };
}

/** One line per figure: `name n=… value unit`. */
export function formatFigures(figures: readonly Figure[]): string {
  const width = Math.max(...figures.map((f) => f.name.length));
  return figures
    .map(rounded)
    .map((f) => `${f.name.padEnd(width)}  n=${String(f.n).padStart(6)}  ${f.value} ${f.unit}`)
    .join('\n');
}
