import {
  ConsoleLogger,
  type DynamicModule,
  type INestApplication,
  Logger,
  Module,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BusModule } from '#bus';
import { ApiModule } from '../api/api.module.js';
import { listen, routeByListener, type Listener } from './http-listener.js';
import { APP_LOGGER, jsonLogger, LogLevelFollower, RUN_OPTIONS } from './log-level.js';
import { MetricsModule } from './metrics.module.js';
import type { RunOptions } from './run-options.js';

/** A running controller process: one Nest context, its listeners, and how to stop it. */
export interface RunningController {
  readonly app: INestApplication;
  readonly healthPort: number;
  readonly metricsPort: number;
  /** Closes watches, finishes or abandons in-flight work, and closes every listener. */
  stop(): Promise<void>;
}

@Module({})
class RootModule {
  static forRoot(
    options: RunOptions,
    logger: ConsoleLogger,
    features: DynamicModule['imports'] = [],
  ): DynamicModule {
    return {
      module: RootModule,
      imports: [BusModule, MetricsModule, ApiModule, ...features],
      providers: [
        { provide: APP_LOGGER, useValue: logger },
        { provide: RUN_OPTIONS, useValue: options },
        LogLevelFollower,
      ],
    };
  }
}

/**
 * Starts the controller: the Nest application (health and /debug on healthPort), and the metrics
 * listener over the same context. `features` are the feature modules to compose.
 */
export async function startController(
  options: RunOptions,
  features: DynamicModule['imports'] = [],
): Promise<RunningController> {
  const logger = jsonLogger(options.logLevel);
  const app = await NestFactory.create(RootModule.forRoot(options, logger, features), {
    logger,
    abortOnError: false,
  });
  app.use(routeByListener());
  await app.listen(options.healthPort, options.address);
  const handler = app.getHttpAdapter().getInstance() as RequestListener;
  let metrics: Listener;
  try {
    metrics = await listen('metrics', options.address, options.metricsPort, handler);
  } catch (e) {
    await app.close();
    throw e;
  }
  const healthPort = (app.getHttpServer() as { address(): AddressInfo }).address().port;
  new Logger('haptic').log(
    `listening: health and /debug on :${healthPort}, metrics on :${metrics.port}`,
  );
  let stopping: Promise<void> | undefined;
  return {
    app,
    healthPort,
    metricsPort: metrics.port,
    stop: () =>
      (stopping ??= (async () => {
        await metrics.close();
        await app.close();
      })()),
  };
}
