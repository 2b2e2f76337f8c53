import { Injectable, Logger } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { isLeaderElectionRunnable, type LeaderElectionRunnable } from '#events';

/** How long a runnable may take to stop before it is named in the log. */
const SLOW_STOP_MS = 10_000;

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

  /**
   * Stops every runnable; resolves when none of them runs any more. Until then this replica does
   * not campaign (the elector waits for this stop), so one that is slow to stop is named.
   */
  async stop(deadline: AbortSignal): Promise<void> {
    await Promise.all(
      this.runnables().map((r) => {
        const slow = setTimeout(
          () =>
            this.logger.warn(
              `${r.constructor.name} has not stopped ${SLOW_STOP_MS / 1000} s after leadership ended; this replica does not campaign until it has`,
            ),
          SLOW_STOP_MS,
        );
        slow.unref();
        return r
          .stopLeading(deadline)
          .catch((e: unknown) => {
            this.logger.error(`${r.constructor.name} did not stop cleanly: ${String(e)}`);
          })
          .finally(() => clearTimeout(slow));
      }),
    );
  }
}
