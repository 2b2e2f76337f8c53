import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EVENT_BUS } from '#bus';
import type { HapticBus, HapticFacts } from '#events';
import { ResourceIndex, type IndexChange } from './lib/resource-index.js';

type Changed = HapticFacts['resource.changed'];

/**
 * Publishes what the index saw: `resource.changed` coalesced per watched resource (one fact per
 * resource per turn of the event loop, naming the object when only one changed) and
 * `index.synced` whenever every watched resource has been listed: at start, and again after a
 * config added or replaced a store and that store's first list arrived.
 */
@Injectable()
export class IndexListener implements OnModuleInit, OnApplicationShutdown {
  private readonly pending = new Map<
    string,
    { count: number; last: IndexChange; receivedAt: number }
  >();
  private readonly logger = new Logger('Index');
  private flushing: NodeJS.Immediate | undefined;
  /** Flushes run one after another so facts keep their order under back-pressure. */
  private chain: Promise<void> = Promise.resolve();
  private wasSynced = false;
  private offs: (() => void)[] = [];
  /** Changes folded into an earlier fact (never silently: counted here). */
  coalesced = 0;

  constructor(
    private readonly index: ResourceIndex,
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
  ) {}

  onModuleInit(): void {
    this.offs = [
      this.index.onChange((c) => this.onChange(c)),
      // A resource that cannot be listed changes nothing but may complete the sync.
      this.index.onListed(() => this.schedule()),
      // A store added or replaced by a new config is empty until its first list: not synced.
      this.index.onConfigured(() => this.schedule()),
    ];
  }

  onApplicationShutdown(): void {
    for (const off of this.offs) off();
    if (this.flushing) clearImmediate(this.flushing);
  }

  private onChange(change: IndexChange): void {
    const p = this.pending.get(change.resource);
    if (p) {
      p.count++;
      p.last = change;
      this.coalesced++;
    } else this.pending.set(change.resource, { count: 1, last: change, receivedAt: Date.now() });
    this.schedule();
  }

  private schedule(): void {
    this.flushing ??= setImmediate(() => {
      this.flushing = undefined;
      this.chain = this.chain
        .then(() => this.flush())
        .catch((e: unknown) => this.logger.error(`publishing index events failed: ${String(e)}`));
    });
  }

  private async flush(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending.clear();
    for (const { count, last, receivedAt } of batch) {
      const payload: Changed =
        count === 1 && last.object
          ? { watched: last.resource, change: last.change, object: last.object, receivedAt }
          : { watched: last.resource, change: count === 1 ? last.change : 'modified', receivedAt };
      // Each change starts its own correlation id: the watch callbacks run in the async context
      // of the config event that started the informers, whose id every change would inherit.
      await this.bus.publish('resource.changed', payload, { correlationId: randomUUID() });
    }
    // Synced is reported after the changes that completed it.
    const synced = this.index.isSynced();
    if (synced && !this.wasSynced) {
      await this.bus.publish('index.synced', { watched: Object.keys(this.index.counts()).sort() });
    }
    this.wasSynced = synced;
  }
}
