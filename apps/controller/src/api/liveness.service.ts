import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';

const SAMPLE_MS = 5_000;
/** A bus topic with events waiting in every sample for this long is stalled. */
const BUS_STALL_MS = 120_000;
/** The event loop blocked this long within the last sample window is stalled. */
const LOOP_STALL_MS = 10_000;

/** Liveness: the event loop has not been blocked for long and no bus topic has stopped draining. */
@Injectable()
export class LivenessService implements OnModuleInit, OnModuleDestroy {
  private loop: IntervalHistogram | undefined;
  private loopMaxMs = 0;
  /** Per topic: since when it has had events queued in every sample. */
  private readonly backedUpSince = new Map<string, number>();

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  onModuleInit(): void {
    this.loop = monitorEventLoopDelay({ resolution: 20 });
    this.loop.enable();
  }

  onModuleDestroy(): void {
    this.loop?.disable();
  }

  /** Every SAMPLE_MS (@nestjs/schedule; its intervals end with the application). */
  @Interval('liveness-sample', SAMPLE_MS)
  tick(): void {
    this.sample(Date.now());
  }

  /** Takes one sample of the loop delay and the bus queues. */
  sample(now: number): void {
    if (this.loop) {
      this.loopMaxMs = this.loop.max / 1e6;
      this.loop.reset();
    }
    for (const s of this.bus.stats()) {
      if (s.queued === 0) this.backedUpSince.delete(s.topic);
      else if (!this.backedUpSince.has(s.topic)) this.backedUpSince.set(s.topic, now);
    }
  }

  /** Why the process is not live, or undefined when it is. */
  problem(now = Date.now()): string | undefined {
    if (this.loopMaxMs > LOOP_STALL_MS)
      return `event loop blocked for ${Math.round(this.loopMaxMs)} ms`;
    const stalled = [...this.backedUpSince]
      .filter(([, since]) => now - since > BUS_STALL_MS)
      .map(([topic]) => topic);
    return stalled.length
      ? `bus topics not draining for ${BUS_STALL_MS / 1000} s: ${stalled.join(', ')}`
      : undefined;
  }
}
