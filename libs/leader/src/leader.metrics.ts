import { Inject, Injectable } from '@nestjs/common';
import { makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { monotonicClock, type Clock } from '#core';
import { LEADER_OPTIONS, type LeaderServiceOptions } from './leader.options.js';

export const LEADER_GAUGE = 'haptic_leader';
export const LEADER_TRANSITIONS = 'haptic_leader_transitions_total';
export const LEADER_SECONDS = 'haptic_leader_seconds_total';

/** How long this replica has led: updated by the LeaderService, read by the seconds counter. */
@Injectable()
export class LeaderTenure {
  private readonly clock: Clock;
  private since: number | undefined;
  private ledMs = 0;

  constructor(@Inject(LEADER_OPTIONS) options: Pick<LeaderServiceOptions, 'clock'>) {
    this.clock = options.clock ?? monotonicClock;
  }

  /** Leadership gained now. */
  begin(): void {
    this.since ??= this.clock.now();
  }

  /** Leadership lost now. */
  end(): void {
    if (this.since !== undefined) this.ledMs += this.clock.now() - this.since;
    this.since = undefined;
  }

  /** Total time led, in seconds. */
  seconds(): number {
    const now = this.since === undefined ? 0 : this.clock.now() - this.since;
    return (this.ledMs + now) / 1000;
  }
}

/** The leader metrics (DESIGN.md §9 names haptic_leader and the transitions counter). */
export const leaderMetrics = [
  makeGaugeProvider({
    name: LEADER_GAUGE,
    help: '1 while this replica leads (holds the Lease or runs standalone), else 0.',
  }),
  makeCounterProvider({
    name: LEADER_TRANSITIONS,
    help: 'Times this replica gained or lost leadership.',
    labelNames: ['to'],
  }),
  makeCounterProvider({
    name: LEADER_SECONDS,
    help: 'Time this replica has spent as leader.',
    inject: [LeaderTenure],
    collect(this: Counter, tenure: LeaderTenure) {
      // a counter only rises: add what was led since the last scrape
      const total = tenure.seconds();
      const counted = (this as Counter & { counted?: number }).counted ?? 0;
      if (total > counted) this.inc(total - counted);
      (this as Counter & { counted?: number }).counted = Math.max(total, counted);
    },
  }),
];
