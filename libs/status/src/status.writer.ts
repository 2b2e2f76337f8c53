import { SchedulerRegistry } from '@nestjs/schedule';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter } from 'prom-client';
import { EVENT_BUS } from '#bus';
import {
  INGRESS_STATUS_SOURCE,
  type HapticBus,
  type IngressStatusSource,
  type LeaderElectionRunnable,
} from '#events';
import { whenAborted } from './lib/aborted.js';
import { fixedAddresses, serviceAddresses, type LoadBalancerIngress } from './lib/addresses.js';
import { desiredConditions, mergeConditions } from './lib/conditions.js';
import { ingressStatusWrites, keyOf } from './lib/ingress-status.js';
import { EventRecorder } from './event-recorder.js';
import { LeaderPasses } from './leader-passes.js';
import { StatusRecorderListener } from './status.events.js';
import { writeEach } from './lib/write-each.js';
import { STATUS_WRITES } from './status.metrics.js';
import { StatusTracker } from './status.tracker.js';
import { STATUS_API, STATUS_OPTIONS, type StatusModuleOptions } from './status.tokens.js';
import type { StatusApi } from './status-api.js';

/** The resync interval's name in the SchedulerRegistry (@nestjs/schedule). */
const STATUS_RESYNC = 'status-resync';

/**
 * Leader-only: writes the HAProxyTemplateConfig status (conditions, per-pod summary) and the
 * Ingress `status.loadBalancer` of the served Ingresses, each only when it changes. Passes run
 * one at a time; a change during a pass runs one more (latest wins). Re-reads the published
 * Service and Nodes every `resyncMs`.
 */
@Injectable()
export class StatusWriter implements LeaderElectionRunnable, OnModuleDestroy {
  private readonly logger = new Logger('Status');
  private readonly offs: (() => void)[] = [];
  private readonly passes: LeaderPasses;
  private lastConfigStatus = '';
  /** Ingresses this leader published an address to (cleared when no longer served). */
  private readonly ours = new Set<string>();

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(STATUS_API) private readonly api: StatusApi,
    @Inject(STATUS_OPTIONS) private readonly options: StatusModuleOptions,
    @Inject(INGRESS_STATUS_SOURCE) private readonly ingresses: IngressStatusSource,
    private readonly tracker: StatusTracker,
    private readonly events: StatusRecorderListener,
    private readonly recorder: EventRecorder,
    @InjectMetric(STATUS_WRITES.name) private readonly writes: Counter<'kind' | 'result'>,
    scheduler: SchedulerRegistry,
  ) {
    this.passes = new LeaderPasses(scheduler, STATUS_RESYNC, options.resyncMs ?? 30_000, (term) =>
      this.pass(term),
    );
  }

  needLeaderElection(): boolean {
    return true;
  }

  startLeading(): void {
    this.lastConfigStatus = '';
    this.offs.push(
      this.tracker.onChange(() => this.passes.request()),
      ...this.events.start(),
    );
    this.passes.start();
  }

  /**
   * Leadership ends: no pass starts; the one in flight and queued Events may finish until
   * `deadline` aborts (already aborted when renewal failed): then they are abandoned at once.
   */
  async stopLeading(deadline: AbortSignal): Promise<void> {
    this.stop(deadline);
    const abandoned = whenAborted(deadline).then(() => this.recorder.abandon());
    await Promise.race([
      Promise.all([this.passes.settled(), this.recorder.idle()]).then(() => undefined),
      abandoned,
    ]);
  }

  onModuleDestroy(): void {
    this.stop();
  }

  /** Resolves when no pass runs or is due (tests). */
  async settled(): Promise<void> {
    await this.passes.settled();
    await this.recorder.idle();
  }

  private stop(deadline?: AbortSignal): void {
    for (const off of this.offs.splice(0)) off();
    this.passes.stop(deadline);
  }

  private async pass(term: AbortSignal): Promise<void> {
    await this.writeConfigStatus(term).catch((e: unknown) => this.failed('config', e));
    await this.writeIngressStatus(term).catch((e: unknown) => this.failed('ingress', e));
  }

  private failed(kind: string, e: unknown): void {
    this.writes.inc({ kind, result: 'error' });
    this.logger.warn(`writing ${kind} status failed: ${String(e)}`);
  }

  private configRef(): { namespace: string; name: string } {
    const source = this.bus.getState('config.current')?.source;
    return {
      namespace: source?.namespace ?? this.options.config.namespace,
      name: source?.name ?? this.options.config.name,
    };
  }

  private async writeConfigStatus(term: AbortSignal): Promise<void> {
    const world = this.tracker.world.current;
    const desired = desiredConditions(world);
    const summary = JSON.stringify([desired, world.validated?.hash, world.pods]);
    if (summary === this.lastConfigStatus) return;
    const { namespace, name } = this.configRef();
    const stored = await this.api.readConfig(namespace, name);
    if (!stored || term.aborted) return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await this.api.patchConfigStatus(namespace, name, {
      observedGeneration: world.rejected?.generation ?? world.accepted?.generation ?? 0,
      conditions: mergeConditions(stored.conditions, desired, now),
      lastRenderHash: world.validated?.hash ?? '',
      pods: world.pods.map((p) => ({ ...p })),
    });
    this.lastConfigStatus = summary;
    this.writes.inc({ kind: 'config', result: 'ok' });
  }

  /** The entries to publish, or undefined when controller.status names nothing (hands off). */
  private async publishedEntries(): Promise<LoadBalancerIngress[] | undefined> {
    const settings = this.bus.getState('config.current')?.spec.controller.status;
    if (!settings) return undefined;
    if (settings.publishService) {
      const [ns, name] = settings.publishService.split('/') as [string, string];
      const service = await this.api.readService(ns, name);
      if (!service) return [];
      const nodes = service.spec?.type === 'NodePort' ? await this.api.listNodes() : [];
      return serviceAddresses(service, nodes);
    }
    return settings.addresses.length > 0 ? fixedAddresses(settings) : undefined;
  }

  private async writeIngressStatus(term: AbortSignal): Promise<void> {
    const entries = await this.publishedEntries();
    if (!entries) return;
    const { served, all } = await this.ingresses.ingresses();
    await writeEach(
      ingressStatusWrites(served, all, entries, this.ours),
      () => this.passes.leading && !term.aborted,
      async (w) => {
        await this.api.patchIngressStatus(w.namespace, w.name, w.entries);
        this.writes.inc({ kind: 'ingress', result: 'ok' });
        const key = keyOf(w.namespace, w.name);
        if (w.entries.length > 0) this.ours.add(key);
        else this.ours.delete(key);
      },
      (w, e) =>
        this.failed('ingress', new Error(`Ingress ${keyOf(w.namespace, w.name)}: ${String(e)}`)),
    );
  }
}
