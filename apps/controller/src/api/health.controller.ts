import { Controller, Get } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { LivenessService } from './liveness.service.js';
import { ReadinessService } from './readiness.service.js';

/** Liveness and readiness probes (Terminus). */
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly readiness: ReadinessService,
    private readonly liveness: LivenessService,
  ) {}

  /** Alive while the event loop answers promptly and every bus topic drains. */
  @Get('healthz')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([
      () => {
        const i = this.indicators.check('process');
        const problem = this.liveness.problem();
        return problem ? i.down({ reason: problem }) : i.up();
      },
    ]);
  }

  /** Ready once every watched resource has been listed; else 503 with the reasons (JSON). */
  @Get('readyz')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => {
        const i = this.indicators.check('index');
        if (this.readiness.ready) return i.up();
        const reasons = this.readiness.reasons();
        return i.down({ reason: reasons.join('; '), reasons });
      },
    ]);
  }
}
