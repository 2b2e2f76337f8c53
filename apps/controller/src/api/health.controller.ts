import { Controller, Get } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { ReadinessService } from './readiness.service.js';

/** Liveness and readiness probes (Terminus). */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: ReadinessService,
  ) {}

  /** Alive while the event loop answers. */
  @Get('healthz')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => this.indicators.check('process').up()]);
  }

  /** Ready once every watched resource has been listed. */
  @Get('readyz')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => {
        const i = this.indicators.check('index');
        return this.readiness.ready
          ? i.up()
          : i.down({ reason: 'waiting for the first list of every watched resource' });
      },
    ]);
  }
}
