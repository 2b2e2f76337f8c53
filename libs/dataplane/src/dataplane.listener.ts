import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { EVENT_BUS } from '#bus';
import { durationMs } from '#core';
import type { HapticBus, LeaderElectionRunnable, ValidatedRender } from '#events';
import {
  DEPLOYMENT_DURATION,
  DEPLOYMENTS_TOTAL,
  forgetPod,
  LAST_SUCCESS,
  RELOADS_TOTAL,
  RUNTIME_OPERATIONS,
} from './dataplane.metrics.js';
import { Fleet, type FleetOptions, type PodDeployResult, type PodReadBack } from './lib/fleet.js';
import { chooseReadBack } from './lib/read-back.js';

const DRIFT_INTERVAL = 'dataplane.drift';

export const DATAPLANE_OPTIONS = Symbol.for('haptic.DataplaneOptions');

export interface DataplaneModuleOptions {
  /** Sent to the Dataplane API (User-Agent) so its request log names this replica. */
  readonly identity: string;
}

/**
 * render.validated + haproxy.pods + dataplane.credentials (states) → keep every pod on the newest
 * validated render with the runtime-first engine; publish deploy.completed / deploy.failed and
 * the per-pod state (dataplane.pods). Drift is corrected every driftPreventionInterval (an
 * interval of @nestjs/schedule). Leader-only work (LeaderElectionRunnable): it runs from
 * startLeading to stopLeading. Each term starts with a new Fleet that reads every pod back before
 * writing; once every pod known at the start has been read, the configuration most of them run
 * is published as dataplane.readback, which the renderer starts its slot choices from (a restart
 * or a failover with no change writes nothing).
 */
@Injectable()
export class DataplaneListener implements LeaderElectionRunnable, OnModuleDestroy {
  private readonly logger = new Logger('Dataplane');
  private readonly unsubscribe: (() => void)[] = [];
  private readonly podsSeen = new Set<string>();
  private fleet: Fleet | undefined;
  /** This term's read-backs, until every pod known at its start has answered. */
  private readBacks: PodReadBack[] | undefined;
  /** The validated render in force when the last term ended: not current for the next term. */
  private staleRender: ValidatedRender | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(DATAPLANE_OPTIONS) private readonly options: DataplaneModuleOptions,
    @InjectMetric(DEPLOYMENTS_TOTAL.name) private readonly deployments: Counter<'pod' | 'result'>,
    @InjectMetric(DEPLOYMENT_DURATION.name) private readonly duration: Histogram<'pod'>,
    @InjectMetric(RELOADS_TOTAL.name) private readonly reloads: Counter<'pod' | 'reason'>,
    @InjectMetric(LAST_SUCCESS.name) private readonly lastSuccess: Gauge<'pod'>,
    @InjectMetric(RUNTIME_OPERATIONS.name) private readonly runtimeOps: Counter<'pod' | 'kind'>,
    private readonly scheduler: SchedulerRegistry,
  ) {}

  needLeaderElection(): boolean {
    return true;
  }

  /** Leadership gained: deploy from the current states (pods are read back before any write). */
  startLeading(): void {
    this.readBacks = [];
    this.unsubscribe.push(
      this.bus.subscribeState('config.current', (e) => this.configure(e.payload.spec.dataplane), {
        name: 'dataplane.config',
      }),
      this.bus.subscribeState(
        'render.validated',
        (e) => {
          if (e.payload !== this.staleRender) this.fleet?.setRender(e.payload);
        },
        { name: 'dataplane.render' },
      ),
      this.bus.subscribeState(
        'haproxy.pods',
        (e) => {
          this.fleet?.setPods(e.payload);
          // no pod to read back: the renderer need not wait
          if (e.payload.length === 0 && this.readBacks) this.onReadBack(undefined);
          return this.forgetVanished(e.payload.map((p) => `${p.namespace}/${p.name}`));
        },
        { name: 'dataplane.pods' },
      ),
      this.bus.subscribeState(
        'dataplane.credentials',
        (e) => this.fleet?.setCredentials(e.payload),
        { name: 'dataplane.credentials' },
      ),
    );
  }

  /** Leadership ends: no new deployment; in-flight ones finish unless `deadline` aborts first. */
  async stopLeading(deadline: AbortSignal): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.stopDrift();
    this.readBacks = undefined;
    this.staleRender = this.bus.getState('render.validated');
    const fleet = this.fleet;
    this.fleet = undefined;
    await fleet?.stop(deadline);
  }

  /** Shutdown without a LeaderModule stop first: in-flight deployments get 5 s to finish. */
  async onModuleDestroy(): Promise<void> {
    await this.stopLeading(AbortSignal.timeout(5_000));
  }

  /** Per-pod state for /debug/pods. */
  status(): ReturnType<Fleet['status']> {
    return this.fleet?.status() ?? [];
  }

  private stopDrift(): void {
    if (this.scheduler.doesExist('interval', DRIFT_INTERVAL))
      this.scheduler.deleteInterval(DRIFT_INTERVAL);
  }

  /** Collects this term's read-backs; publishes the seed once every pod known now has answered. */
  private onReadBack(r: PodReadBack | undefined): void {
    if (!this.readBacks) return;
    if (r) this.readBacks.push(r);
    const pods = this.bus.getState('haproxy.pods') ?? [];
    const read = new Set(this.readBacks.map((x) => `${x.pod.namespace}/${x.pod.name}`));
    if (pods.some((p) => !read.has(`${p.namespace}/${p.name}`))) return;
    const seed = chooseReadBack(this.readBacks);
    this.readBacks = undefined;
    this.logger.log(
      `read back ${seed.pods} pod(s): ${seed.haproxyConfig === null ? 'none runs a configuration' : `${seed.agreeing} run the configuration the renderer starts from`}`,
    );
    this.bus.setState('dataplane.readback', seed);
  }

  /** The fleet of one term or config (a test seam: a subclass may wrap the options). */
  protected createFleet(options: FleetOptions): Fleet {
    return new Fleet(options);
  }

  private configure(dp: {
    scheme: 'http' | 'https';
    tls?: { insecureSkipVerify: boolean };
    minDeploymentInterval: string;
    maxParallel: number;
    deploymentTimeout: string;
    driftPreventionInterval: string;
  }): void {
    // The fleet this one replaces finishes its deployments in flight before the new one starts.
    const previousStopped = this.fleet?.stop();
    this.fleet = this.createFleet({
      ...(previousStopped ? { after: previousStopped } : {}),
      scheme: dp.scheme,
      ...(dp.scheme === 'https' && dp.tls
        ? { tls: { insecureSkipVerify: dp.tls.insecureSkipVerify } }
        : {}),
      minDeploymentIntervalMs: durationMs(dp.minDeploymentInterval),
      maxParallel: dp.maxParallel,
      timeoutMs: durationMs(dp.deploymentTimeout),
      identity: this.options.identity,
      onResult: (r) => this.report(r),
      onReadBack: (r) => this.onReadBack(r),
      onState: () => this.bus.setState('dataplane.pods', this.status()),
    });
    const { bus } = this;
    const creds = bus.getState('dataplane.credentials');
    const pods = bus.getState('haproxy.pods');
    const render = bus.getState('render.validated');
    if (creds) this.fleet.setCredentials(creds);
    if (render && render !== this.staleRender) this.fleet.setRender(render);
    if (pods) this.fleet.setPods(pods);
    this.stopDrift();
    const drift = setInterval(
      () => this.fleet?.checkDrift(),
      durationMs(dp.driftPreventionInterval),
    );
    drift.unref();
    this.scheduler.addInterval(DRIFT_INTERVAL, drift);
  }

  /** Pods gone from discovery lose their series (no stale per-pod metrics). */
  private async forgetVanished(current: readonly string[]): Promise<void> {
    const now = new Set(current);
    const gone = [...this.podsSeen].filter((p) => !now.has(p));
    this.podsSeen.clear();
    for (const p of now) this.podsSeen.add(p);
    const perPod = [
      this.deployments,
      this.duration,
      this.reloads,
      this.lastSuccess,
      this.runtimeOps,
    ];
    for (const pod of gone) await forgetPod(perPod, pod);
  }

  private async report(r: PodDeployResult): Promise<void> {
    const pod = `${r.pod.namespace}/${r.pod.name}`;
    this.duration.observe({ pod }, r.durationMs / 1000);
    if (r.ok) {
      const { operations, reloaded, reloadReasons } = r.outcome;
      const changed = operations.length > 0 || reloaded;
      this.deployments.inc({ pod, result: changed ? 'applied' : 'unchanged' });
      if (reloaded) this.reloads.inc({ pod, reason: reloadReason(reloadReasons) });
      const runtime = operations.filter((o) => o.runtime);
      for (const o of runtime) this.runtimeOps.inc({ pod, kind: o.kind });
      this.lastSuccess.set({ pod }, Date.now() / 1000);
      await this.bus.publish('deploy.completed', {
        pod,
        hash: r.hash,
        reloaded,
        runtimeOperations: runtime.length,
        durationMs: r.durationMs,
        ...(r.outcome.stages ? { stages: r.outcome.stages } : {}),
      });
      return;
    }
    this.deployments.inc({ pod, result: 'failed' });
    const reason = r.error instanceof Error ? r.error.message : String(r.error);
    this.logger.warn(`deployment of ${r.hash.slice(0, 12)} to ${pod} failed: ${reason}`);
    await this.bus.publish('deploy.failed', { pod, hash: r.hash, reason });
  }
}

/** A bounded `reason` label: the kind of the first section that needed the reload. */
function reloadReason(reasons: readonly string[]): string {
  const first = /^(\w+)/.exec(reasons[0] ?? '')?.[1];
  return first ?? 'structural';
}
