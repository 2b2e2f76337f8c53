import { makeCounterProvider, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';
import { WatchManager } from './lib/watch-manager.js';

type WatchStatus = ReturnType<WatchManager['status']>[number];

const UNLISTABLE = ['unauthorized', 'forbidden', 'not-found', 'invalid'];

/** A counter per watched resource read from the manager's own tally at scrape time. */
function tally(name: string, help: string, pick: (s: WatchStatus) => number) {
  return makeCounterProvider({
    name,
    help,
    labelNames: ['watched'],
    inject: [WatchManager],
    collect(this: Counter, manager: WatchManager) {
      this.reset();
      for (const s of manager.status()) this.inc({ watched: s.resource }, pick(s));
    },
  });
}

/** Per watched resource: re-lists, restarts and whether it can be listed at all. */
export const watchMetrics = [
  tally(
    'haptic_watch_relists_total',
    'Re-lists after 410 Gone since the watch started.',
    (s) => s.relists,
  ),
  tally(
    'haptic_watch_restarts_total',
    'Watch restarts after errors since the watch started.',
    (s) => s.restarts,
  ),
  makeGaugeProvider({
    name: 'haptic_watch_unlistable',
    help: '1 while the resource cannot be listed (forbidden, not found or invalid selector).',
    labelNames: ['watched'],
    inject: [WatchManager],
    collect(this: Gauge, manager: WatchManager) {
      this.reset();
      for (const s of manager.status())
        this.set({ watched: s.resource }, UNLISTABLE.includes(s.phase) ? 1 : 0);
    },
  }),
];
