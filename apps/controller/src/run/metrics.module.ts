import {
  Global,
  Inject,
  Module,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectMetric, makeGaugeProvider, PrometheusModule } from '@willsoto/nestjs-prometheus';
import { collectDefaultMetrics, register, type Gauge } from 'prom-client';
import { EVENT_BUS } from '#bus';
import { METRICS_REGISTRY, type HapticBus } from '#events';

const BUS_QUEUE_DEPTH = 'haptic_bus_queue_depth';

const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** Application contexts alive in this process (one in production; tests may start several). */
let liveContexts = 0;

/**
 * The application's one metrics registry: prom-client's default registry, which
 * @willsoto/nestjs-prometheus declares every metric on (each lib lists its metrics as providers
 * made with makeCounterProvider, makeGaugeProvider, makeHistogramProvider) and its controller
 * serves at /metrics — on the metrics listener only (see listeners.ts). Process metrics and the
 * bus queue gauge are declared here. When the last context closes the registry is cleared, so a
 * later context in the same process starts from fresh metrics, not from stale collectors.
 */
@Global()
@Module({
  imports: [PrometheusModule.register({ defaultMetrics: { enabled: false } })],
  providers: [
    { provide: METRICS_REGISTRY, useValue: register },
    makeGaugeProvider({
      name: BUS_QUEUE_DEPTH,
      help: 'Events queued for subscribers of a bus topic (state topics: undelivered newer values).',
      labelNames: ['topic', 'kind'],
      inject: [EVENT_BUS],
      collect(this: Gauge, bus: HapticBus) {
        this.reset();
        for (const s of bus.stats()) this.set({ topic: s.topic, kind: s.kind }, s.queued);
      },
    }),
  ],
  exports: [METRICS_REGISTRY],
})
export class MetricsModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(METRICS_REGISTRY) private readonly registry: typeof register,
    @InjectMetric(BUS_QUEUE_DEPTH) readonly busQueueDepth: Gauge,
  ) {}

  onModuleInit(): void {
    liveContexts += 1;
    if (this.registry.getSingleMetric('process_cpu_user_seconds_total')) return;
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters (promtool refuses them); the per-type gauges hold the same data.
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
  }

  onApplicationShutdown(): void {
    liveContexts -= 1;
    if (liveContexts === 0) this.registry.clear();
  }
}
