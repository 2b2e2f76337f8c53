import { Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { isLeaderElectionRunnable, type LeaderElectionRunnable } from '#events';

/**
 * Finds every provider of the application that declares it needs leadership and starts or stops
 * all of them together. This is the only place leader-only work is switched.
 */
@Injectable()
export class LeaderWork {
  private readonly logger = new Logger('Leader');
  private found: readonly LeaderElectionRunnable[] | undefined;

  constructor(private readonly discovery: DiscoveryService) {}

  /** The leader-only work of this application (found once, after every module is initialised). */
  runnables(): readonly LeaderElectionRunnable[] {
    this.found ??= [
      ...new Set(
        this.discovery
          .getProviders()
          .map((w) => w.instance as unknown)
          .filter(isLeaderElectionRunnable)
          .filter((r) => r.needLeaderElection()),
      ),
    ];
    return this.found;
  }

  /** Starts every runnable (each from current state). */
  async start(): Promise<void> {
    for (const r of this.runnables()) {
      try {
        await r.startLeading();
      } catch (e) {
        this.logger.error(`${r.constructor.name} did not start: ${String(e)}`);
      }
    }
  }

  /** Stops every runnable; resolves when none of them runs any more. */
  async stop(deadline: AbortSignal): Promise<void> {
    await Promise.all(
      this.runnables().map((r) =>
        r.stopLeading(deadline).catch((e: unknown) => {
          this.logger.error(`${r.constructor.name} did not stop cleanly: ${String(e)}`);
        }),
      ),
    );
  }
}
