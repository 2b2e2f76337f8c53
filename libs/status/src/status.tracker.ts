import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { WorldTracker } from './lib/world-tracker.js';

/**
 * Keeps the ObservedWorld on every replica (like the index, so a new leader starts from what
 * this replica saw): config accepted/refused, renders, validations, deployments, pods. Writes
 * nothing; `onChange` tells the leader-only StatusWriter.
 */
@Injectable()
export class StatusTracker implements OnModuleInit, OnModuleDestroy {
  readonly world = new WorldTracker();
  private readonly offs: (() => void)[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  /** Calls `listener` after every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onModuleInit(): void {
    const b = this.bus;
    const w = this.world;
    const on =
      <T>(f: (p: T) => void) =>
      (e: { payload: T }) => {
        f(e.payload);
        for (const l of this.listeners) l();
      };
    const name = { name: 'status-tracker' };
    this.offs.push(
      b.subscribe(
        'config.accepted',
        on((p) => w.accepted(p.generation)),
        name,
      ),
      b.subscribe(
        'config.rejected',
        on((p) =>
          w.rejected(p.generation ?? 0, p.problems.map((x) => `${x.path}: ${x.reason}`).join('; ')),
        ),
        name,
      ),
      b.subscribe(
        'object.quarantined',
        on(() => w.quarantined()),
        name,
      ),
      b.subscribe(
        'render.completed',
        on((p) => w.rendered(p.hash)),
        name,
      ),
      b.subscribe(
        'render.failed',
        on((p) => w.failed('render', p.reason)),
        name,
      ),
      b.subscribe(
        'validation.failed',
        on((p) => w.failed('validation', p.reason)),
        name,
      ),
      b.subscribeState(
        'render.validated',
        on((p) => w.validated(p.hash, p.configGeneration)),
        name,
      ),
      b.subscribe(
        'deploy.completed',
        on((p) => w.deployed(p.pod, p.hash, p.reloaded, new Date().toISOString())),
        name,
      ),
      b.subscribe(
        'deploy.failed',
        on((p) => w.deployFailed(p.pod, p.reason)),
        name,
      ),
      b.subscribeState(
        'haproxy.pods',
        on((pods) => w.pods(pods.map((p) => `${p.namespace}/${p.name}`))),
        name,
      ),
    );
    const config = b.getState('config.current');
    if (config) w.accepted(config.source.generation ?? 0);
  }

  onModuleDestroy(): void {
    for (const off of this.offs.splice(0)) off();
  }
}
