import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';

/** One structured log record of a reconcile outcome (the JSON logger prints it as one line). */
export interface ReconcileOutcome {
  readonly outcome: 'render-failed' | 'invalid' | 'valid' | 'deployed' | 'deploy-failed';
  readonly correlationId: string;
  readonly hash?: string;
  readonly pod?: string;
  readonly reason?: string;
  readonly reloaded?: boolean;
  readonly runtimeOperations?: number;
}

/**
 * Logs one line per reconcile outcome (DESIGN.md §9) with the correlation id the trigger started,
 * so the log tells the same story as /debug/events: a render that failed, a render validation
 * rejected or passed, and each pod's deployment of it. Failures are warnings, the rest info.
 */
@Injectable()
export class ReconcileOutcomeLog implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Reconcile');
  private readonly offs: (() => void)[] = [];

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  onModuleInit(): void {
    const name = { name: 'reconcile.outcomes' };
    const on = this.bus.subscribe.bind(this.bus);
    this.offs.push(
      on(
        'render.failed',
        (e) => this.warn({ outcome: 'render-failed', ...id(e), reason: e.payload.reason }),
        name,
      ),
      on(
        'validation.failed',
        (e) => this.warn({ outcome: 'invalid', ...id(e), ...e.payload }),
        name,
      ),
      on(
        'validation.completed',
        (e) => this.info({ outcome: 'valid', ...id(e), hash: e.payload.hash }),
        name,
      ),
      on(
        'deploy.completed',
        (e) => {
          const { pod, hash, reloaded, runtimeOperations } = e.payload;
          this.info({ outcome: 'deployed', ...id(e), pod, hash, reloaded, runtimeOperations });
        },
        name,
      ),
      on(
        'deploy.failed',
        (e) => this.warn({ outcome: 'deploy-failed', ...id(e), ...e.payload }),
        name,
      ),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.offs.splice(0)) off();
  }

  private info(o: ReconcileOutcome): void {
    this.logger.log(o);
  }

  private warn(o: ReconcileOutcome): void {
    this.logger.warn(o);
  }
}

function id(e: { readonly correlationId: string }): { correlationId: string } {
  return { correlationId: e.correlationId };
}
