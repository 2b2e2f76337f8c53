import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectMetric, makeHistogramProvider } from '@willsoto/nestjs-prometheus';
import type { Histogram } from 'prom-client';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { ChangeStages, type ChangeRecord } from './change-stages.js';

/** `haptic_change_stage_seconds{stage}`: where a change's time went (stage: CHANGE_STAGES). */
export const CHANGE_STAGE_SECONDS = {
  name: 'haptic_change_stage_seconds',
  help: 'Time an applied change spent per stage, from the index to the last pod (deploy stages per pod).',
  labelNames: ['stage'],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
};

/** The provider of haptic_change_stage_seconds. */
export const changeStageMetric = makeHistogramProvider(CHANGE_STAGE_SECONDS);

/** Feeds ChangeStages from the bus, by correlation id; /debug/changes reads it. */
@Injectable()
export class ChangeLog implements OnModuleInit, OnModuleDestroy {
  private readonly offs: (() => void)[] = [];
  readonly stages: ChangeStages;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @InjectMetric(CHANGE_STAGE_SECONDS.name) histogram: Histogram<'stage'>,
  ) {
    this.stages = new ChangeStages({ observe: (stage, s) => histogram.observe({ stage }, s) });
  }

  onModuleInit(): void {
    const name = { name: 'debug.changes' };
    const s = this.stages;
    const { bus } = this;
    this.offs.push(
      bus.subscribe(
        'resource.changed',
        (e) => {
          const { watched, change, object: o, receivedAt } = e.payload;
          const what = o
            ? `${watched} ${o.namespace ?? ''}/${o.name} ${change}`
            : `${watched} ${change}`;
          s.changed(e.correlationId, what, e.at, receivedAt);
        },
        name,
      ),
      bus.subscribe(
        'reconcile.triggered',
        (e) => s.triggered(e.correlationId, e.at, e.payload.changes ?? []),
        name,
      ),
      bus.subscribe(
        'render.completed',
        (e) => s.stage(e.correlationId, 'render', e.payload.durationMs, e.payload.hash),
        name,
      ),
      bus.subscribe('render.failed', (e) => s.failed(e.correlationId, e.payload.reason), name),
      bus.subscribe(
        'validation.completed',
        (e) => {
          s.stage(e.correlationId, 'validate', e.payload.durationMs);
          s.deploying(e.correlationId, bus.getState('haproxy.pods')?.length ?? 0, e.at);
        },
        name,
      ),
      bus.subscribe('validation.failed', (e) => s.failed(e.correlationId, e.payload.reason), name),
      bus.subscribe(
        'deploy.completed',
        (e) => {
          const { pod, hash, durationMs, reloaded, stages } = e.payload;
          s.deployed(hash, { pod, durationMs, reloaded, stages: stages ?? {} }, e.at);
        },
        name,
      ),
      bus.subscribe(
        'deploy.failed',
        (e) => {
          const { pod, hash, reason } = e.payload;
          s.deployed(
            hash,
            { pod, durationMs: 0, reloaded: false, stages: {}, error: reason },
            e.at,
          );
        },
        name,
      ),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.offs.splice(0)) off();
  }

  /** The newest finished changes (newest first) and those still in flight. */
  view(): { changes: readonly ChangeRecord[]; pending: readonly ChangeRecord[] } {
    return { changes: this.stages.list(), pending: this.stages.pending() };
  }
}
