import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';

/**
 * Readiness: the index has seen every watch's first list. It never depends on the configuration
 * being valid, so a broken configuration can always be fixed (DESIGN.md §8).
 */
@Injectable()
export class ReadinessService implements OnModuleInit {
  private syncedAt: number | undefined;

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  onModuleInit(): void {
    this.bus.subscribe(
      'index.synced',
      (e) => {
        this.syncedAt ??= e.at;
      },
      { name: 'readiness' },
    );
  }

  /** True once the index reported synced. */
  get ready(): boolean {
    return this.syncedAt !== undefined;
  }
}
