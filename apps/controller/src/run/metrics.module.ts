import { Global, Module } from '@nestjs/common';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { EVENT_BUS } from '#bus';
import { METRICS_REGISTRY, type HapticBus } from '#events';

/** One prom-client Registry per application context, with process metrics and the bus gauges. */
@Global()
@Module({
  providers: [
    {
      provide: METRICS_REGISTRY,
      inject: [EVENT_BUS],
      useFactory: (bus: HapticBus) => {
        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        new Gauge({
          name: 'haptic_bus_queue_depth',
          help: 'Events queued for subscribers of a bus topic (state topics: undelivered newer values).',
          labelNames: ['topic', 'kind'],
          registers: [registry],
          collect() {
            this.reset();
            for (const s of bus.stats()) this.set({ topic: s.topic, kind: s.kind }, s.queued);
          },
        });
        return registry;
      },
    },
  ],
  exports: [METRICS_REGISTRY],
})
export class MetricsModule {}
