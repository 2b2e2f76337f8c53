import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge, Histogram } from 'prom-client';
import { EVENT_BUS } from '#bus';
import { durationMs } from '#core';
import type { HapticBus } from '#events';
import {
  DEPLOYMENT_DURATION,
  DEPLOYMENTS_TOTAL,
  forgetPod,
  LAST_SUCCESS,
  RELOADS_TOTAL,
} from './dataplane.metrics.js';
import { Fleet, type PodDeployResult } from './lib/fleet.js';

export const DATAPLANE_OPTIONS = Symbol.for('haptic.DataplaneOptions');

export interface DataplaneModuleOptions {
  /** Sent to the Dataplane API (User-Agent) so its request log names this replica. */
  readonly identity: string;
}

/**
 * render.validated + haproxy.pods + dataplane.credentials (states) → keep every pod on the newest
 * validated render; publish deploy.completed / deploy.failed. Drift is corrected every
 * driftPreventionInterval. (Until the leader issue lands, every replica deploys.)
 */
@Injectable()
export class DataplaneListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Dataplane');
  private readonly unsubscribe: (() => void)[] = [];
  private readonly podsSeen = new Set<string>();
  private fleet: Fleet | undefined;
  private driftTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(DATAPLANE_OPTIONS) private readonly options: DataplaneModuleOptions,
    @InjectMetric(DEPLOYMENTS_TOTAL.name) private readonly deployments: Counter<'pod' | 'result'>,
    @InjectMetric(DEPLOYMENT_DURATION.name) private readonly duration: Histogram<'pod'>,
    @InjectMetric(RELOADS_TOTAL.name) private readonly reloads: Counter<'pod' | 'reason'>,
    @InjectMetric(LAST_SUCCESS.name) private readonly lastSuccess: Gauge<'pod'>,
  ) {}

  onModuleInit(): void {
    this.unsubscribe.push(
      this.bus.subscribeState('config.current', (e) => this.configure(e.payload.spec.dataplane), {
        name: 'dataplane.config',
      }),
      this.bus.subscribeState('render.validated', (e) => this.fleet?.setRender(e.payload), {
        name: 'dataplane.render',
      }),
      this.bus.subscribeState(
        'haproxy.pods',
        (e) => {
          this.fleet?.setPods(e.payload);
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

  async onModuleDestroy(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.driftTimer) clearInterval(this.driftTimer);
    await this.fleet?.stop();
  }

  /** Per-pod state for /debug/pods. */
  status(): ReturnType<Fleet['status']> {
    return this.fleet?.status() ?? [];
  }

  private configure(dp: {
    scheme: 'http' | 'https';
    minDeploymentInterval: string;
    maxParallel: number;
    deploymentTimeout: string;
    driftPreventionInterval: string;
  }): void {
    const previous = this.fleet;
    if (previous) void previous.stop();
    this.fleet = new Fleet({
      scheme: dp.scheme,
      minDeploymentIntervalMs: durationMs(dp.minDeploymentInterval),
      maxParallel: dp.maxParallel,
      timeoutMs: durationMs(dp.deploymentTimeout),
      identity: this.options.identity,
      onResult: (r) => this.report(r),
    });
    const { bus } = this;
    const creds = bus.getState('dataplane.credentials');
    const pods = bus.getState('haproxy.pods');
    const render = bus.getState('render.validated');
    if (creds) this.fleet.setCredentials(creds);
    if (render) this.fleet.setRender(render);
    if (pods) this.fleet.setPods(pods);
    if (this.driftTimer) clearInterval(this.driftTimer);
    this.driftTimer = setInterval(
      () => this.fleet?.checkDrift(),
      durationMs(dp.driftPreventionInterval),
    );
    this.driftTimer.unref();
  }

  /** Pods gone from discovery lose their series (no stale per-pod metrics). */
  private async forgetVanished(current: readonly string[]): Promise<void> {
    const now = new Set(current);
    const gone = [...this.podsSeen].filter((p) => !now.has(p));
    this.podsSeen.clear();
    for (const p of now) this.podsSeen.add(p);
    const perPod = [this.deployments, this.duration, this.reloads, this.lastSuccess];
    for (const pod of gone) await forgetPod(perPod, pod);
  }

  private async report(r: PodDeployResult): Promise<void> {
    const pod = `${r.pod.namespace}/${r.pod.name}`;
    this.duration.observe({ pod }, r.durationMs / 1000);
    if (r.ok) {
      this.deployments.inc({ pod, result: r.outcome.changed ? 'applied' : 'unchanged' });
      if (r.outcome.reloaded) this.reloads.inc({ pod, reason: 'structural' });
      this.lastSuccess.set({ pod }, Date.now() / 1000);
      await this.bus.publish('deploy.completed', {
        pod,
        hash: r.hash,
        reloaded: r.outcome.reloaded,
        runtimeOperations: 0,
        durationMs: r.durationMs,
      });
      return;
    }
    this.deployments.inc({ pod, result: 'failed' });
    const reason = r.error instanceof Error ? r.error.message : String(r.error);
    this.logger.warn(`deployment of ${r.hash.slice(0, 12)} to ${pod} failed: ${reason}`);
    await this.bus.publish('deploy.failed', { pod, hash: r.hash, reason });
  }
}
