import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { METRICS_REGISTRY } from '#events';
import { Gauge, type Registry } from 'prom-client';
import { WatchManager } from './lib/watch-manager.js';

/** Per watched resource: re-lists, restarts and the phase its streams are in. */
@Injectable()
export class WatchMetrics implements OnModuleInit {
  constructor(
    private readonly manager: WatchManager,
    @Optional() @Inject(METRICS_REGISTRY) private readonly registry?: Registry,
  ) {}

  onModuleInit(): void {
    if (!this.registry) return;
    const manager = this.manager;
    const gauge = (
      name: string,
      help: string,
      pick: (s: ReturnType<WatchManager['status']>[number]) => number,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['watched'],
        registers: [this.registry!],
        collect() {
          this.reset();
          for (const s of manager.status()) this.set({ watched: s.resource }, pick(s));
        },
      });
    gauge(
      'haptic_watch_relists',
      'Re-lists after 410 Gone since the watch started.',
      (s) => s.relists,
    );
    gauge(
      'haptic_watch_restarts',
      'Watch restarts after errors since the watch started.',
      (s) => s.restarts,
    );
    gauge(
      'haptic_watch_unlistable',
      '1 while the resource cannot be listed (forbidden, not found or invalid selector).',
      (s) => (['unauthorized', 'forbidden', 'not-found', 'invalid'].includes(s.phase) ? 1 : 0),
    );
  }
}
