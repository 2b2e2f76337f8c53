/** A duration as written in the config: `100ms`, `2s`, `1m`, `1h`, or a sum such as `1m30s`. */
export type DurationText = string;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;

/** Milliseconds for a duration text, or undefined when the text is not a duration. */
export function tryParseDuration(text: string): number | undefined {
  if (!WHOLE.test(text)) return undefined;
  let total = 0;
  for (const [, value, unit] of text.matchAll(PART)) {
    total += Number(value) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return Math.round(total);
}

/** Milliseconds for a duration text; throws RangeError for anything else (validated input never does). */
export function durationMs(text: DurationText): number {
  const ms = tryParseDuration(text);
  if (ms === undefined) throw new RangeError(`not a duration: ${JSON.stringify(text)}`);
  return ms;
}

/** The reason a duration text is refused, or undefined when it is fine. */
export function durationProblem(text: unknown): string | undefined {
  if (typeof text !== 'string' || tryParseDuration(text) === undefined) {
    return 'not a valid duration (write it like 100ms, 2s, 1m or 1m30s)';
  }
  return undefined;
}
