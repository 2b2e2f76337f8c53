import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { EVENT_BUS } from '#bus';
import {
  durationMs,
  ReconcileScheduler,
  systemClock,
  type Clock,
  type TemplateConfig,
} from '#core';
import type { HapticBus } from '#events';
import { RECONCILE_TOTAL } from './reconcile.metrics.js';

/** DI token: the clock the scheduler uses (tests inject a fake one). */
export const RECONCILE_CLOCK = Symbol.for('haptic.ReconcileClock');

/**
 * The reconcile loop's trigger (DESIGN.md §3): watch events only mark the world dirty; this turns
 * them into `reconcile.triggered` facts under the timing contract of ReconcileScheduler
 * (leading edge, `debounce`, `maxDelay`, no overlap). Nothing is triggered before the index has
 * synced, so a render never sees a half-listed world; a new config version triggers too.
 */
@Injectable()
export class ReconcileListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Reconcile');
  private readonly offs: (() => void)[] = [];
  private scheduler: ReconcileScheduler | undefined;
  private synced = false;
  private timing = '';

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
          );
        },
        name,
      ),
    );
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    await this.scheduler?.stop();
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
        run: async (batch) => {
          this.triggers.inc({ result: 'triggered' });
          this.triggers.inc({ result: 'coalesced' }, Math.max(0, batch.triggers - 1));
          const reason =
            batch.reasons.length <= 3
              ? batch.reasons.join('; ')
              : `${batch.reasons.slice(0, 3).join('; ')} and ${batch.reasons.length - 3} more`;
          await this.bus.publish('reconcile.triggered', { reason, coalesced: batch.triggers - 1 });
        },
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
