import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { EVENT_BUS } from '#bus';
import {
  durationMs,
  ReconcileScheduler,
  systemClock,
  type Clock,
  type ReconcileBatch,
  type TemplateConfig,
  type TimerHandle,
} from '#core';
import { CHANGES_PER_RUN, type HapticBus } from '#events';
import { RECONCILE_TOTAL } from './reconcile.metrics.js';

/** DI token: the clock the scheduler uses (tests inject a fake one). */
export const RECONCILE_CLOCK = Symbol.for('haptic.ReconcileClock');

/**
 * The reconcile loop's trigger (DESIGN.md §3): watch events only mark the world dirty; this turns
 * them into `reconcile.triggered` facts under the timing contract of ReconcileScheduler (a lone
 * change at once; changes arriving while a render runs coalesced, `debounce`, `maxDelay`, no
 * overlap). A run lasts until its render completes or fails (at most `maxDelay`: a replica that
 * does not lead renders nothing). Each trigger carries the correlation ids of the changes it
 * covers. Nothing is triggered before the index has synced, so a render never sees a half-listed
 * world; a new config version triggers too.
 */
@Injectable()
export class ReconcileListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Reconcile');
  private readonly offs: (() => void)[] = [];
  private scheduler: ReconcileScheduler | undefined;
  private synced = false;
  private timing = '';
  /** Runs waiting for their render, by the trigger's correlation id. */
  private readonly rendering = new Map<string, () => void>();

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Optional() @Inject(RECONCILE_CLOCK) private readonly clock: Clock = systemClock,
    @InjectMetric(RECONCILE_TOTAL.name) private readonly triggers: Counter<'result'>,
  ) {}

  onModuleInit(): void {
    const name = { name: 'reconcile' };
    this.offs.push(
      this.bus.subscribeState('config.current', (e) => this.onConfig(e.payload), name),
      this.bus.subscribe(
        'index.synced',
        () => {
          this.synced = true;
          this.scheduler?.trigger('index synced');
        },
        name,
      ),
      this.bus.subscribe(
        'resource.changed',
        (e) => {
          if (!this.synced) return; // the first render after sync reads everything anyway
          const o = e.payload.object;
          this.scheduler?.trigger(
            o
              ? `${e.payload.watched} ${o.namespace ?? ''}/${o.name} ${e.payload.change}`
              : `${e.payload.watched} ${e.payload.change}`,
            e.correlationId,
          );
        },
        name,
      ),
      this.bus.subscribe('render.completed', (e) => this.rendered(e.correlationId), name),
      this.bus.subscribe('render.failed', (e) => this.rendered(e.correlationId), name),
    );
  }

  private rendered(correlationId: string): void {
    this.rendering.get(correlationId)?.();
  }

  /** Publishes one trigger and waits for its render (at most `maxDelayMs`). */
  private async runOnce(batch: ReconcileBatch, maxDelayMs: number): Promise<void> {
    this.triggers.inc({ result: 'triggered' });
    this.triggers.inc({ result: 'coalesced' }, Math.max(0, batch.triggers - 1));
    const reason =
      batch.reasons.length <= 3
        ? batch.reasons.join('; ')
        : `${batch.reasons.slice(0, 3).join('; ')} and ${batch.reasons.length - 3} more`;
    const changes = batch.ids.slice(0, CHANGES_PER_RUN);
    const correlationId = changes[0] ?? randomUUID();
    let timer: TimerHandle | undefined;
    const done = new Promise<void>((resolve) => {
      this.rendering.set(correlationId, resolve);
      timer = this.clock.setTimeout(resolve, maxDelayMs);
    });
    try {
      await this.bus.publish(
        'reconcile.triggered',
        { reason, coalesced: batch.triggers - 1, ...(changes.length > 0 ? { changes } : {}) },
        { correlationId },
      );
      await done;
    } finally {
      if (timer) this.clock.clearTimeout(timer);
      this.rendering.delete(correlationId);
    }
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    const stopped = this.scheduler?.stop();
    for (const release of this.rendering.values()) release(); // no render comes any more
    await stopped;
  }

  private onConfig(config: TemplateConfig): void {
    const { debounce, maxDelay } = config.spec.controller.reconcile;
    const timing = `${debounce}/${maxDelay}`;
    if (timing !== this.timing) {
      this.timing = timing;
      const old = this.scheduler;
      this.scheduler = new ReconcileScheduler({
        debounceMs: durationMs(debounce),
        maxDelayMs: durationMs(maxDelay),
        clock: this.clock,
        maxIds: CHANGES_PER_RUN,
        run: (batch) => this.runOnce(batch, durationMs(maxDelay)),
        onError: (e) => this.logger.error(`reconcile trigger failed: ${String(e)}`),
      });
      void old?.stop();
    }
    if (this.synced)
      this.scheduler?.trigger(
        `config ${config.source.name ?? ''} generation ${config.source.generation ?? 0}`,
      );
  }
}
