import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { TemplateConfig } from '#core';
import { EVENT_BUS } from '#bus';
import type { HaproxyPod, HapticBus, LeaderElectionRunnable } from '#events';
import { formatProblem } from './lib/problems.js';
import type { PreviousDeployment, RenderResult, RenderSnapshot } from './lib/types.js';
import { RenderService } from './render.service.js';

/**
 * Port: where the listener gets the current index snapshot (the IndexModule provides it; its
 * snapshot may be asynchronous because on-demand stores fetch objects first).
 */
export interface RenderSnapshotSource {
  snapshot(): RenderSnapshot | Promise<RenderSnapshot>;
}

/** How long the first render waits for the pods' read-back (dataplane.readback). */
const SEED_WAIT_MS = 10_000;

/** DI token of the RenderSnapshotSource. */
export const RENDER_SNAPSHOT_SOURCE = Symbol.for('haptic.RenderSnapshotSource');

/**
 * The bus adapter: compiles each accepted config (every replica: webhook dry-runs need it),
 * renders on every reconcile trigger while it runs as leader-only work (LeaderElectionRunnable),
 * and publishes the result (render.rendered state, render.completed/failed facts, one
 * object.quarantined fact per object left out).
 */
@Injectable()
export class RenderListener implements OnModuleInit, LeaderElectionRunnable {
  private readonly logger = new Logger('RenderListener');
  /** The reconcile.triggered subscription while leading. */
  private leading: (() => void) | undefined;
  private indexSynced = false;
  private pods: readonly HaproxyPod[] = [];
  private previous: PreviousDeployment | undefined;
  private configGeneration = 0;
  private compiledFor: TemplateConfig | undefined;
  /** Whether the pods' read-back (dataplane.readback) has arrived; resolves the first render's wait. */
  private seeded = false;
  private seedArrived: (() => void) | undefined;
  private readonly seedWait = new Promise<void>((resolve) => (this.seedArrived = resolve));

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    private readonly service: RenderService,
    @Optional() @Inject(RENDER_SNAPSHOT_SOURCE) private readonly source?: RenderSnapshotSource,
  ) {}

  onModuleInit(): void {
    const name = { name: 'render' };
    this.bus.subscribe('index.synced', () => void (this.indexSynced = true), name);
    this.bus.subscribeState('haproxy.pods', (e) => void (this.pods = e.payload), name);
    this.bus.subscribeState('render.validated', (e) => this.rememberDeployed(e.payload), name);
    this.bus.subscribeState('dataplane.readback', (e) => this.seedFrom(e.payload), name);
    this.bus.subscribeState('config.current', (e) => this.onConfig(e.payload), name);
  }

  needLeaderElection(): boolean {
    return true;
  }

  /**
   * Leadership gained: render on every trigger, and once now from the current index (no replay of
   * missed triggers: the render reads the whole index). Before the index has synced, the first
   * trigger (sent once it has) starts the work, so a half-listed world is never rendered.
   */
  async startLeading(): Promise<void> {
    this.leading ??= this.bus.subscribe('reconcile.triggered', () => this.renderNow(), {
      name: 'render',
    });
    if (this.indexSynced) await this.renderNow();
  }

  /** Leadership ends: no render starts any more (one under way only sets a state). */
  stopLeading(): Promise<void> {
    this.leading?.();
    this.leading = undefined;
    return Promise.resolve();
  }

  /** What the pods run, read back: the first render's slot choices start from it. */
  private seedFrom(seed: { haproxyConfig: string | null; maps: object }): void {
    if (!this.previous && seed.haproxyConfig !== null) {
      const maps = seed.maps as Readonly<Record<string, string>>;
      this.previous = { haproxyConfig: seed.haproxyConfig, maps };
    }
    this.seeded = true;
    this.seedArrived?.();
  }

  /**
   * Before the first render of a process that has deployed nothing yet, waits (bounded) for the
   * pods to be read back, so the render keeps the server slots they run: no reload on restart.
   */
  private async awaitSeed(): Promise<void> {
    if (this.seeded || this.previous || this.pods.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((r) => (timer = setTimeout(r, SEED_WAIT_MS)));
    await Promise.race([this.seedWait, timeout]);
    clearTimeout(timer);
    if (!this.seeded) {
      this.seeded = true;
      this.logger.warn(
        `no read-back of the HAProxy pods after ${SEED_WAIT_MS} ms: rendering without it`,
      );
    }
  }

  private rememberDeployed(v: { outputs: { haproxyConfig: string; maps: object } }): void {
    const maps = v.outputs.maps as Readonly<Record<string, string>>;
    this.previous = { haproxyConfig: v.outputs.haproxyConfig, maps };
  }

  /**
   * Compiles a new config version at once (so template errors are reported without waiting), but
   * does not render: the ReconcileModule triggers the render once the index has synced, so a render
   * never reads a half-listed world.
   */
  private async onConfig(config: TemplateConfig): Promise<void> {
    await this.compileFor(config);
  }

  /** Compiles `config` unless it is the one already compiled; false when it does not compile. */
  private async compileFor(config: TemplateConfig): Promise<boolean> {
    if (this.compiledFor === config) return this.service.ready;
    this.compiledFor = config;
    const compiled = this.service.compile(config);
    if (!compiled.ok) {
      const reason = `templates do not compile: ${compiled.error.map(formatProblem).join('; ')}`;
      await this.bus.publish('render.failed', { reason });
      return false;
    }
    this.configGeneration = config.source.generation ?? 0;
    return true;
  }

  /** Renders the current snapshot and publishes the outcome. */
  async renderNow(): Promise<void> {
    // The trigger may be handled before the config.current handler: compile the config in force.
    const config = this.bus.getState('config.current');
    if (!config || !(await this.compileFor(config)) || !this.service.ready) return;
    if (!this.source) {
      const reason = 'no index snapshot source is wired (RENDER_SNAPSHOT_SOURCE); nothing rendered';
      this.logger.warn(reason);
      await this.bus.publish('render.failed', { reason });
      return;
    }
    await this.awaitSeed();
    const started = performance.now();
    const snapshot = await this.source.snapshot();
    const result = this.service.render(snapshot, {
      controller: { haproxy_pods: this.pods, is_leader: this.leading !== undefined },
      ...(this.previous ? { previous: this.previous } : {}),
    });
    await this.publish(result, performance.now() - started);
  }

  private async publish(result: RenderResult, durationMs: number): Promise<void> {
    for (const q of result.quarantined) {
      const { watched, namespace, name } = q.object;
      await this.bus.publish('object.quarantined', {
        watched,
        object: namespace === undefined ? { name } : { namespace, name },
        reason: formatProblem(q.problem),
      });
    }
    if (!result.ok) {
      await this.bus.publish('render.failed', {
        reason: result.problems.map(formatProblem).join('; '),
      });
      return;
    }
    const { hash, outputs } = result;
    this.bus.setState('render.rendered', {
      hash,
      outputs,
      configGeneration: this.configGeneration,
    });
    await this.bus.publish('render.completed', { hash, durationMs });
  }
}
