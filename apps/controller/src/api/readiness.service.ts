import { Inject, Injectable, Optional, type OnModuleInit } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { WatchManager } from '#watch';
import { readinessReasons } from './readiness-reasons.js';

/**
 * Readiness: the index has seen every watch's first list. It never depends on the configuration
 * being valid, so a broken configuration can always be fixed (DESIGN.md §8). While not ready it
 * says what it waits for: the API server, its credentials, the CRD, the named config, a watch.
 */
@Injectable()
export class ReadinessService implements OnModuleInit {
  private syncedAt: number | undefined;
  private accepted = false;
  private rejected: string | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Optional() private readonly watch?: WatchManager,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe(
      'index.synced',
      (e) => {
        this.syncedAt ??= e.at;
      },
      { name: 'readiness' },
    );
    this.bus.subscribeState(
      'config.current',
      () => {
        this.accepted = true;
      },
      { name: 'readiness-config' },
    );
    this.bus.subscribe(
      'config.rejected',
      (e) => {
        this.rejected = e.payload.problems
          .map((p) => `${p.path}: ${p.reason}`)
          .join('; ')
          .slice(0, 500);
      },
      { name: 'readiness-config-rejected' },
    );
  }

  /** True once the index reported synced. */
  get ready(): boolean {
    return this.syncedAt !== undefined;
  }

  /** What readiness still waits for (always at least one reason while not ready). */
  reasons(): string[] {
    const reasons = readinessReasons({
      config: this.watch?.configStatus(),
      rejected: this.rejected,
      accepted: this.accepted,
      watches: this.watch?.status() ?? [],
    });
    return reasons.length > 0 ? reasons : ['waiting for the first list of every watched resource'];
  }
}
