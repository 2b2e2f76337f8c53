import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { METRICS_REGISTRY } from '#events';
import { Gauge, type Registry } from 'prom-client';
import { ResourceIndex } from './lib/resource-index.js';

/** `haptic_resources{watched}` (objects or references held) and `haptic_index_synced`. */
@Injectable()
export class IndexMetrics implements OnModuleInit {
  constructor(
    private readonly index: ResourceIndex,
    @Optional() @Inject(METRICS_REGISTRY) private readonly registry?: Registry,
  ) {}

  onModuleInit(): void {
    if (!this.registry) return;
    const index = this.index;
    new Gauge({
      name: 'haptic_resources',
      help: 'Objects (full store) or references (on-demand store) held per watched resource.',
      labelNames: ['watched'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [watched, n] of Object.entries(index.counts())) this.set({ watched }, n);
      },
    });
    new Gauge({
      name: 'haptic_index_synced',
      help: '1 once every watched resource has been listed, else 0.',
      registers: [this.registry],
      collect() {
        this.set(index.isSynced() ? 1 : 0);
      },
    });
  }
}
