import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectMetric, makeCounterProvider } from '@willsoto/nestjs-prometheus';
import { EVENT_BUS, type HapticBus } from 'haptic';
import type { Counter } from 'prom-client';

/** The team's own metric: it lands on haptic's one registry and is served on haptic's :9090. */
export const RENDERS_OBSERVED = 'example_renders_observed_total';

export const rendersObservedMetric = makeCounterProvider({
  name: RENDERS_OBSERVED,
  help: 'Renders the example module saw completed on the haptic event bus.',
});

/** Subscribes to haptic's `render.completed` facts and counts them. */
@Injectable()
export class RenderCounter implements OnModuleInit, OnModuleDestroy {
  private off: (() => void) | undefined;
  seen = 0;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @InjectMetric(RENDERS_OBSERVED) private readonly counter: Counter,
  ) {}

  onModuleInit(): void {
    this.off = this.bus.subscribe(
      'render.completed',
      () => {
        this.seen += 1;
        this.counter.inc();
      },
      { name: 'example-render-counter' },
    );
  }

  onModuleDestroy(): void {
    this.off?.();
  }
}
