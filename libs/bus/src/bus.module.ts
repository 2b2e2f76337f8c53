import {
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { EventBus } from './lib/event-bus.js';

/** DI token of the process's one EventBus. */
export const EVENT_BUS = Symbol.for('haptic.EventBus');

/** Starts delivery once every module has subscribed, and closes the bus on shutdown. */
@Injectable()
class BusLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(EVENT_BUS) private readonly bus: EventBus<never, never>) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.bus.start();
  }

  onApplicationShutdown(): void {
    this.bus.close();
  }
}

/**
 * One bus per Nest application context. Subscribers register in onModuleInit; start-up events are
 * buffered until onApplicationBootstrap, when every subscriber exists.
 */
@Global()
@Module({
  providers: [
    {
      provide: EVENT_BUS,
      useFactory: () => {
        const logger = new Logger('EventBus');
        return new EventBus({
          onHandlerError: (error, event, subscriber) =>
            logger.error(
              `handler ${subscriber} failed on ${event.topic} (${event.correlationId}): ${String(error)}`,
            ),
          onSlowSubscriber: (r) =>
            logger.warn(
              `subscriber ${r.subscriber} of ${r.topic} is slow: ${r.queued} queued, publisher waited ${r.waitedMs} ms`,
            ),
        });
      },
    },
    BusLifecycle,
  ],
  exports: [EVENT_BUS],
})
export class BusModule {}
