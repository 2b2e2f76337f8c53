import { Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { TerminusModule } from '@nestjs/terminus';
import { ChangeLog, changeStageMetric } from './change-log.js';
import { DebugController } from './debug.controller.js';
import { DeploymentLog } from './deployment-log.js';
import { LivenessService } from './liveness.service.js';
import { QuarantineLog } from './quarantine-log.js';
import { HealthController } from './health.controller.js';
import { ReadinessService } from './readiness.service.js';

/** The HTTP surface of the health/debug listener: no business logic, only views. */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), ScheduleModule.forRoot()],
  controllers: [HealthController, DebugController],
  providers: [
    ReadinessService,
    LivenessService,
    DeploymentLog,
    QuarantineLog,
    ChangeLog,
    changeStageMetric,
  ],
})
export class ApiModule {}
