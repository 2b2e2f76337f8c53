import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { EventAggregator, type EventRecord } from './lib/event-aggregator.js';
import { STATUS_EVENTS } from './status.metrics.js';
import { STATUS_API, STATUS_OPTIONS, type StatusModuleOptions } from './status.tokens.js';
import type { StatusApi } from './status-api.js';

/**
 * Records Kubernetes Events (core/v1, as client-go's recorder writes them), aggregated: a
 * repeat raises the count of the Event already written. Writes one after another; a failure is
 * logged and counted, never thrown.
 */
@Injectable()
export class EventRecorder {
  private readonly logger = new Logger('Status');
  private readonly aggregator = new EventAggregator();
  private chain: Promise<void> = Promise.resolve();
  /** Raised by abandon(): Events queued before are dropped, not written. */
  private generation = 0;

  constructor(
    @Inject(STATUS_API) private readonly api: StatusApi,
    @Inject(STATUS_OPTIONS) private readonly options: StatusModuleOptions,
    @InjectMetric(STATUS_EVENTS.name) private readonly events: Counter<'reason' | 'result'>,
  ) {}

  /** Queues one Event; resolves when it was written (or failed). */
  record(record: EventRecord): Promise<void> {
    const write = this.aggregator.record(record, Date.now());
    const reporter = { component: 'haptic', instance: this.options.identity };
    const generation = this.generation;
    this.chain = this.chain.then(async () => {
      if (generation !== this.generation) {
        this.aggregator.forget(write.key);
        return;
      }
      try {
        await this.api.writeEvent(write, reporter);
        this.events.inc({
          reason: record.reason,
          result: write.op === 'create' ? 'created' : 'counted',
        });
      } catch (e) {
        this.aggregator.forget(write.key);
        this.events.inc({ reason: record.reason, result: 'error' });
        this.logger.warn(
          `writing Event ${record.reason} for ${record.involved.kind} ${record.involved.name} failed: ${String(e)}`,
        );
      }
    });
    return this.chain;
  }

  /** Resolves when every queued Event is written. */
  idle(): Promise<void> {
    return this.chain;
  }

  /** Leadership abandoned: Events queued and not yet sent are dropped (no write may follow). */
  abandon(): void {
    this.generation++;
  }
}
