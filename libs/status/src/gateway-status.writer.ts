import { SchedulerRegistry } from '@nestjs/schedule';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import type { LeaderElectionRunnable } from '#events';
import { gatewayModelOf, GATEWAY_WATCHED } from './lib/gateway/snapshot.js';
import { gatewayServiceWrites, type ServiceWrite } from './lib/gateway/service-writes.js';
import { gatewayStatusWrites } from './lib/gateway/status-writes.js';
import { LeaderPasses } from './leader-passes.js';
import { writeEach } from './lib/write-each.js';
import { STATUS_WRITES } from './status.metrics.js';
import { StatusTracker } from './status.tracker.js';
import {
  GATEWAY_STATUS_API,
  GATEWAY_STATUS_SOURCE,
  STATUS_OPTIONS,
  type GatewayStatusSource,
  type StatusModuleOptions,
} from './status.tokens.js';
import type { GatewayStatusApi } from './gateway-status-api.js';
import type { GatewayModel } from './lib/gateway/types.js';

/** The resync interval's name in the SchedulerRegistry (@nestjs/schedule). */
const GATEWAY_STATUS_RESYNC = 'gateway-status-resync';

type GatewaySnapshot = NonNullable<Awaited<ReturnType<GatewayStatusSource['snapshot']>>>;

function describe(w: ServiceWrite): string {
  return w.op === 'delete'
    ? `${w.namespace}/${w.name}`
    : `${w.service.metadata.namespace}/${w.service.metadata.name}`;
}

/**
 * Leader-only: writes GatewayClass, Gateway and HTTPRoute/GRPCRoute status from the resolver's
 * model of the current snapshot — the function the `gateway` template variable runs, over the
 * same objects and extraContext — only where it differs from what the objects show. Passes run
 * one at a time after every render outcome the tracker sees and every `resyncMs`.
 */
@Injectable()
export class GatewayStatusWriter implements LeaderElectionRunnable, OnModuleDestroy {
  private readonly logger = new Logger('GatewayStatus');
  private off: (() => void) | undefined;
  private readonly passes: LeaderPasses;

  constructor(
    @Inject(GATEWAY_STATUS_API) private readonly api: GatewayStatusApi,
    @Inject(GATEWAY_STATUS_SOURCE) private readonly source: GatewayStatusSource,
    @Inject(STATUS_OPTIONS) private readonly options: StatusModuleOptions,
    private readonly tracker: StatusTracker,
    @InjectMetric(STATUS_WRITES.name) private readonly writes: Counter<'kind' | 'result'>,
    scheduler: SchedulerRegistry,
  ) {
    const resyncMs = options.resyncMs ?? 30_000;
    this.passes = new LeaderPasses(scheduler, GATEWAY_STATUS_RESYNC, resyncMs, (term) =>
      this.pass(term).catch((e: unknown) => this.failed(e)),
    );
  }

  needLeaderElection(): boolean {
    return true;
  }

  startLeading(): void {
    this.off = this.tracker.onChange(() => this.passes.request());
    this.passes.start();
  }

  /** Leadership ends: the pass in flight writes no more; resolves when it ends or `deadline` aborts. */
  async stopLeading(deadline: AbortSignal): Promise<void> {
    this.stop(deadline);
    await this.passes.drained(deadline);
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** Resolves when no pass runs or is due (tests). */
  async settled(): Promise<void> {
    await this.passes.settled();
  }

  private stop(deadline?: AbortSignal): void {
    this.off?.();
    this.off = undefined;
    this.passes.stop(deadline);
  }

  /**
   * Service-per-Gateway: create, patch or delete the Gateways' Services where they differ (our
   * Services of Gateways gone, or of a config no longer in Service mode, are deleted).
   */
  private async services(
    model: GatewayModel,
    services: readonly object[],
    podSelector: GatewaySnapshot['podSelector'],
  ): Promise<void> {
    const selector = podSelector?.matchLabels ?? {};
    // in the HAProxy pods' namespace (the config's), where the selector finds them
    const namespace = this.options.config.namespace;
    const writes = gatewayServiceWrites(model, namespace, services, selector);
    const selectable =
      Object.keys(selector).length > 0 && (podSelector?.matchExpressions ?? []).length === 0;
    await writeEach(
      writes,
      () => this.passes.leading,
      async (write) => {
        if (write.op !== 'delete' && !selectable) {
          this.failed(
            new Error(
              `HAProxyTemplateConfig ${namespace}/${this.options.config.name}: spec.podSelector must be matchLabels only (no matchExpressions) for extraContext.gateway_service_type; Service ${describe(write)} not written`,
            ),
          );
          return;
        }
        await this.api.writeService(write);
        this.writes.inc({ kind: 'gateway-service', result: 'ok' });
      },
      (write, e) => {
        this.writes.inc({ kind: 'gateway-service', result: 'error' });
        this.logger.warn(`${write.op} Gateway Service ${describe(write)} failed: ${String(e)}`);
      },
    );
  }

  private failed(e: unknown): void {
    this.writes.inc({ kind: 'gateway', result: 'error' });
    this.logger.warn(`writing Gateway API status failed: ${String(e)}`);
  }

  private async pass(term: AbortSignal): Promise<void> {
    const snap = await this.source.snapshot();
    if (term.aborted || !snap || !snap.watched.includes(GATEWAY_WATCHED.gatewayClasses)) return;
    const model = gatewayModelOf(snap.list, snap.watched, snap.extra);
    const read = (n: string) => (snap.watched.includes(n) ? snap.list(n) : []);
    const w = GATEWAY_WATCHED;
    const objects = {
      gatewayClasses: read(w.gatewayClasses),
      gateways: read(w.gateways),
      httpRoutes: read(w.httpRoutes),
      grpcRoutes: read(w.grpcRoutes),
    };
    await this.services(model, read(w.services), snap.podSelector);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const what = (w: { kind: string; namespace?: string; name: string }) =>
      `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`;
    await writeEach(
      gatewayStatusWrites(model, objects, now),
      () => this.passes.leading && !term.aborted,
      async (write) => {
        await this.api.patchStatus(write.kind, write.namespace, write.name, write.status);
        this.writes.inc({ kind: 'gateway', result: 'ok' });
      },
      (write, e) => this.failed(new Error(`${what(write)}: ${String(e)}`)),
    );
  }
}
