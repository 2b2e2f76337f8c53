import { durationMs, type LeaderElectionSpec } from '#core';
import { timingProblem, type ElectionTiming } from './elector.js';

/** The election timing of a config, or the problem that makes it unsafe (naming the field). */
export function electionTiming(
  spec: Pick<LeaderElectionSpec, 'leaseDuration' | 'renewDeadline' | 'retryPeriod'>,
): { ok: true; timing: ElectionTiming } | { ok: false; problem: string } {
  const timing = {
    leaseDurationMs: durationMs(spec.leaseDuration),
    renewDeadlineMs: durationMs(spec.renewDeadline),
    retryPeriodMs: durationMs(spec.retryPeriod),
  };
  const problem = timingProblem(timing);
  return problem
    ? { ok: false, problem: `spec.controller.leaderElection: ${problem}` }
    : { ok: true, timing };
}
