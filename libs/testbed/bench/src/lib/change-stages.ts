import type { ChangeStagesSeen } from './cluster.js';
import { single, type Measure } from './measures.js';

/** The stages the latency figures break a change down into (the controller's CHANGE_STAGES). */
export const LATENCY_STAGES = [
  // the bench's own: from the change's first API write until the controller's index got it
  'watch',
  'index',
  'debounce',
  'render',
  'validate',
  'deploy',
  'queue',
  'plan',
  'wait',
  'runtime',
  'storage',
  'reload',
  'applied',
] as const;

/** Ms per stage of one applied change (the deploy stages of its slowest pod; absent: 0). */
export function stagesOf(c: ChangeStagesSeen): Record<string, number> {
  const pod = [...c.pods].sort((a, b) => b.durationMs - a.durationMs)[0];
  const out: Record<string, number> = {};
  for (const s of LATENCY_STAGES) out[s] = c.stagesMs[s] ?? pod?.stages[s] ?? 0;
  out['deploy'] = pod?.durationMs ?? 0;
  return out;
}

/** stagesOf, with `watch`: from `writtenAt` (ISO, the change's first API write) to receivedAt. */
export function stagesSince(c: ChangeStagesSeen, writtenAt: string): Record<string, number> {
  return {
    ...stagesOf(c),
    watch: Math.max(0, Date.parse(c.receivedAt) - Date.parse(writtenAt)),
  };
}

/** The median of each stage over a series' applied changes (none: no figures). */
export function stageMedians(
  kind: string,
  stages: readonly Record<string, number>[],
  size: number,
): Measure[] {
  if (stages.length === 0) return [];
  return LATENCY_STAGES.map((s) => {
    const v = stages.map((x) => x[s] ?? 0).sort((a, b) => a - b);
    const median = v[Math.floor((v.length - 1) / 2)]!;
    return single(`latency.${kind}.stage.${s}`, 'ms', median, size, v.length);
  });
}

/**
 * Per change (received from `starts[k]` until the next change began), the stages of its record
 * applied last, with `watch` from `starts[k]`.
 */
export function lastAppliedPerChange(
  applied: readonly ChangeStagesSeen[],
  starts: readonly string[],
): Record<string, number>[] {
  const end = (c: ChangeStagesSeen) => Date.parse(c.receivedAt) + (c.stagesMs['applied'] ?? 0);
  const last = new Map<number, ChangeStagesSeen>();
  for (const c of applied) {
    let k = -1;
    while (k + 1 < starts.length && (starts[k + 1] ?? '') <= c.receivedAt) k++;
    if (k < 0) continue;
    const had = last.get(k);
    // applied by the same deployment (within a millisecond): the earlier change made it
    const same = had !== undefined && Math.abs(end(c) - end(had)) < 1;
    if (!had || (same ? c.receivedAt < had.receivedAt : end(c) > end(had))) last.set(k, c);
  }
  return [...last.keys()]
    .sort((a, b) => a - b)
    .map((k) => stagesSince(last.get(k)!, starts[k] ?? ''));
}
