import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Histogram } from 'prom-client';
import { EVENT_BUS } from '#bus';
import type { HapticBus, ValidatedRender } from '#events';
import { formatProblem } from './lib/problems.js';
import { VALIDATION_DURATION } from './validation.metrics.js';
import { ValidationService } from './validation.service.js';

/**
 * render.rendered (latest wins) → validate with the config in force → on success set
 * render.validated and publish validation.completed; otherwise publish validation.failed (the
 * last validated render stays in place).
 */
@Injectable()
export class ValidationListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Validation');
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    private readonly validation: ValidationService,
    @InjectMetric(VALIDATION_DURATION.name) private readonly duration: Histogram<'result'>,
  ) {}

  onModuleInit(): void {
    this.unsubscribe.push(
      this.bus.subscribeState('render.rendered', (e) => this.validate(e.payload), {
        name: 'validation',
      }),
    );
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** Validates one render; never throws (a failure is a fact, not an error). */
  async validate(render: ValidatedRender): Promise<void> {
    // Read at validation time: the config in force now, whatever order the states arrived in.
    const config = this.bus.getState('config.current');
    if (!config) {
      await this.bus.publish('validation.failed', {
        hash: render.hash,
        reason: 'no configuration in force',
      });
      return;
    }
    const started = performance.now();
    const result = await this.validation
      .validate(config.spec, render.outputs)
      .catch((e: unknown) => ({
        valid: false as const,
        problems: [
          {
            stage: 'haproxy' as const,
            output: 'haproxy.cfg',
            reason: `validation could not run: ${String(e)}`,
          },
        ],
        haproxy: { ran: false },
      }));
    const durationMs = performance.now() - started;
    this.duration.observe({ result: result.valid ? 'valid' : 'invalid' }, durationMs / 1000);
    if (result.valid) {
      this.bus.setState('render.validated', render);
      await this.bus.publish('validation.completed', { hash: render.hash, durationMs });
      return;
    }
    const reason = result.problems.map(formatProblem).join('; ');
    this.logger.warn(`render ${render.hash.slice(0, 12)} rejected: ${reason}`);
    await this.bus.publish('validation.failed', { hash: render.hash, reason });
  }
}
