import { makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { ResourceIndex } from './lib/resource-index.js';

/** `haptic_resources{watched}` (objects or references held) and `haptic_index_synced`. */
export const indexMetrics = [
  makeGaugeProvider({
    name: 'haptic_resources',
    help: 'Objects (full store) or references (on-demand store) held per watched resource.',
    labelNames: ['watched'],
    inject: [ResourceIndex],
    collect(this: Gauge, index: ResourceIndex) {
      this.reset();
      for (const [watched, n] of Object.entries(index.counts())) this.set({ watched }, n);
    },
  }),
  makeGaugeProvider({
    name: 'haptic_index_synced',
    help: '1 once every watched resource has been listed, else 0.',
    inject: [ResourceIndex],
    collect(this: Gauge, index: ResourceIndex) {
      this.set(index.isSynced() ? 1 : 0);
    },
  }),
];
