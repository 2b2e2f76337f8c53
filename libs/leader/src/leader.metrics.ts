import { Counter, Gauge, type Registry } from 'prom-client';

/** The leader metrics, declared in one place (DESIGN.md §9 names haptic_leader and the counter). */
export interface LeaderMetrics {
  readonly leader: Gauge;
  readonly transitions: Counter;
  readonly seconds: Counter;
}

/** Registers the leader metrics; `leadingSince` tells the time-as-leader counter what to add. */
export function leaderMetrics(registry: Registry, leadingSeconds: () => number): LeaderMetrics {
  const registers = [registry];
  let counted = 0;
  return {
    leader: new Gauge({
      name: 'haptic_leader',
      help: '1 while this replica leads (holds the Lease or runs standalone), else 0.',
      registers,
    }),
    transitions: new Counter({
      name: 'haptic_leader_transitions_total',
      help: 'Times this replica gained or lost leadership.',
      labelNames: ['to'],
      registers,
    }),
    seconds: new Counter({
      name: 'haptic_leader_seconds_total',
      help: 'Time this replica has spent as leader.',
      registers,
      collect() {
        const total = leadingSeconds();
        if (total > counted) this.inc(total - counted);
        counted = total;
      },
    }),
  };
}
