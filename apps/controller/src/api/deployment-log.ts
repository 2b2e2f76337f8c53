import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';

/** The last deployment to one pod, as /debug/pods and /debug/diff show it. */
export interface PodDeployment {
  readonly hash: string;
  readonly result: 'deployed' | 'failed';
  readonly at: string;
  readonly correlationId: string;
  readonly reloaded?: boolean;
  readonly runtimeOperations?: number;
  readonly durationMs?: number;
  readonly reason?: string;
}

/** Keeps the latest deploy.completed / deploy.failed per pod (bounded by the number of pods). */
@Injectable()
export class DeploymentLog implements OnModuleInit, OnModuleDestroy {
  private readonly last = new Map<string, PodDeployment>();
  private readonly offs: (() => void)[] = [];

  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}

  onModuleInit(): void {
    const name = { name: 'debug.deployments' };
    this.offs.push(
      this.bus.subscribe(
        'deploy.completed',
        (e) => {
          const { pod, hash, reloaded, runtimeOperations, durationMs } = e.payload;
          const at = new Date(e.at).toISOString();
          const correlationId = e.correlationId;
          this.last.set(pod, {
            hash,
            result: 'deployed',
            at,
            correlationId,
            reloaded,
            runtimeOperations,
            durationMs,
          });
        },
        name,
      ),
      this.bus.subscribe(
        'deploy.failed',
        (e) => {
          const { pod, hash, reason } = e.payload;
          const at = new Date(e.at).toISOString();
          this.last.set(pod, {
            hash,
            result: 'failed',
            at,
            correlationId: e.correlationId,
            reason,
          });
        },
        name,
      ),
      this.bus.subscribeState('haproxy.pods', (e) => {
        const current = new Set(e.payload.map((p) => `${p.namespace}/${p.name}`));
        for (const pod of this.last.keys()) if (!current.has(pod)) this.last.delete(pod);
      }),
    );
  }

  onModuleDestroy(): void {
    for (const off of this.offs.splice(0)) off();
  }

  /** The latest deployment of `pod`, if any. */
  of(pod: string): PodDeployment | undefined {
    return this.last.get(pod);
  }

  /** Every pod with a recorded deployment. */
  all(): ReadonlyMap<string, PodDeployment> {
    return this.last;
  }
}

/** Why a deployment did or did not reload HAProxy, in words. */
export function reloadReason(d: PodDeployment): string {
  if (d.result === 'failed') return `not applied: ${d.reason ?? 'failed'}`;
  if (d.reloaded) return 'structural change: HAProxy reloaded';
  if ((d.runtimeOperations ?? 0) > 0)
    return 'runtime-applicable change: applied through the runtime API, no reload';
  return 'no change: nothing to apply';
}
