import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { TemplateConfig } from '#core';
import { EVENT_BUS } from '#bus';
import type { HaproxyPod, HapticBus, LeaderElectionRunnable, RenderNoticeFact } from '#events';
import { formatProblem } from './lib/problems.js';
import type {
  PreviousDeployment,
  RenderNotice,
  RenderResult,
  RenderSnapshot,
} from './lib/types.js';
import { RenderService } from './render.service.js';

/**
 * Port: where the listener gets the current index snapshot (the IndexModule provides it; its
 * snapshot may be asynchronous because on-demand stores fetch objects first).
 */
export interface RenderSnapshotSource {
  snapshot(): RenderSnapshot | Promise<RenderSnapshot>;
  /**
   * Watched resources whose store has not had its first list (after a start, or after a config
   * replaced the store): a render waits until there is none, so it never reads a half-listed
   * index. The index publishes `index.synced` when the last one arrives, which triggers a render.
   */
  pending?(): readonly string[];
}

/** How long the first render waits for the pods' read-back (dataplane.readback). */
const SEED_WAIT_MS = 10_000;

/** DI token: whether the first render waits for the pods' read-back (boolean). */
export const RENDER_AWAIT_READBACK = Symbol.for('haptic.RenderAwaitReadBack');

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
  /** The notices of the last successful render (each logged once while it stays). */
  private notices = new Set<string>();
  private configGeneration = 0;
  private compiledFor: TemplateConfig | undefined;
  /** Whether the pods' read-back (dataplane.readback) has arrived; resolves the first render's wait. */
  private seeded = false;
  private podsKnown = false;
  private renderDeferred = false;
  private seedTimer: NodeJS.Timeout | undefined;
  /** The render under way (renders give way to the event loop, so they must not overlap). */
  private rendering: Promise<void> = Promise.resolve();

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    private readonly service: RenderService,
    @Optional() @Inject(RENDER_SNAPSHOT_SOURCE) private readonly source?: RenderSnapshotSource,
    @Optional() @Inject(RENDER_AWAIT_READBACK) private readonly awaitReadBack?: boolean,
  ) {}

  onModuleInit(): void {
    const name = { name: 'render' };
    this.bus.subscribe('index.synced', () => void (this.indexSynced = true), name);
    this.bus.subscribeState(
      'haproxy.pods',
      (e) => {
        this.pods = e.payload;
        this.podsKnown = true;
        // no pod to read back: a render deferred for the read-back runs now
        return e.payload.length === 0 ? this.resumeDeferred() : undefined;
      },
      name,
    );
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
  private seedFrom(seed: { haproxyConfig: string | null; maps: object }): Promise<void> {
    if (!this.previous && seed.haproxyConfig !== null) {
      const maps = seed.maps as Readonly<Record<string, string>>;
      this.previous = { haproxyConfig: seed.haproxyConfig, maps };
    }
    this.seeded = true;
    return this.resumeDeferred();
  }

  /**
   * Before the first render of a process that has deployed nothing yet, the pods are read back so
   * the render keeps the server slots they run (no reload on restart). True when the render must
   * wait: it is deferred (not awaited here, which would hold the bus the read-back needs) and
   * runs when the read-back arrives, when the pods turn out to be none, or after SEED_WAIT_MS.
   */
  private deferForSeed(): boolean {
    if (!this.awaitReadBack || this.seeded || this.previous) return false;
    if (this.podsKnown && this.pods.length === 0) return false;
    this.renderDeferred = true;
    this.seedTimer ??= setTimeout(() => {
      if (!this.seeded) {
        this.seeded = true;
        this.logger.warn(
          `no read-back of the HAProxy pods after ${SEED_WAIT_MS} ms: rendering without it`,
        );
      }
      void this.resumeDeferred();
    }, SEED_WAIT_MS);
    this.seedTimer.unref();
    return true;
  }

  /** Runs the render deferred for the read-back, if any (while leading). */
  private async resumeDeferred(): Promise<void> {
    clearTimeout(this.seedTimer);
    if (!this.renderDeferred || !this.leading) return;
    this.renderDeferred = false;
    await this.renderNow().catch((e: unknown) =>
      this.logger.error(`render failed: ${e instanceof Error ? e.message : String(e)}`),
    );
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

  /**
   * Renders the current snapshot and publishes the outcome, after any render under way: a render
   * gives way to the event loop (lease renewal, watches) while it works, one at a time.
   */
  renderNow(): Promise<void> {
    const run = this.rendering.then(() => this.renderOne());
    this.rendering = run.catch(() => undefined);
    return run;
  }

  private async renderOne(): Promise<void> {
    // The trigger may be handled before the config.current handler: compile the config in force.
    const config = this.bus.getState('config.current');
    if (!config || !(await this.compileFor(config)) || !this.service.ready) return;
    if (!this.source) {
      const reason = 'no index snapshot source is wired (RENDER_SNAPSHOT_SOURCE); nothing rendered';
      this.logger.warn(reason);
      await this.bus.publish('render.failed', { reason });
      return;
    }
    if (this.deferForSeed()) return;
    const waiting = this.source.pending?.() ?? [];
    if (waiting.length > 0) {
      // not a failure: index.synced triggers the render once these have been listed
      this.logger.debug(`render waits for the first list of ${waiting.join(', ')}`);
      return;
    }
    const started = performance.now();
    const snapshot = await this.source.snapshot();
    const result = await this.service.renderYielding(snapshot, {
      controller: { haproxy_pods: this.pods, is_leader: this.leading !== undefined },
      ...(this.previous ? { previous: this.previous } : {}),
    });
    await this.publish(result, performance.now() - started);
  }

  /**
   * Logs each notice (a served object with something to report) when it first appears, and
   * publishes the notices about objects as the render.notices state when the list changes.
   */
  private logNotices(notices: readonly RenderNotice[]): void {
    const now = new Set(notices.map((n) => n.message));
    for (const message of now) if (!this.notices.has(message)) this.logger.warn(message);
    const changed = now.size !== this.notices.size || [...now].some((m) => !this.notices.has(m));
    this.notices = now;
    if (changed || !this.bus.getState('render.notices'))
      this.bus.setState('render.notices', noticeFacts(notices));
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
    this.logNotices(result.notices ?? []);
    const { hash, outputs } = result;
    this.bus.setState('render.rendered', {
      hash,
      outputs,
      configGeneration: this.configGeneration,
    });
    await this.bus.publish('render.completed', { hash, durationMs });
  }
}

/** The notices about an object, one per (object, message), sorted for a stable state. */
export function noticeFacts(notices: readonly RenderNotice[]): RenderNoticeFact[] {
  const byKey = new Map<string, RenderNoticeFact>();
  for (const n of notices) {
    if (!n.object) continue;
    const { watched, namespace, name } = n.object;
    const object = namespace === undefined ? { name } : { namespace, name };
    const fact = { watched, object, reason: n.reason ?? 'RenderNotice', message: n.message };
    byKey.set(`${watched}/${namespace ?? ''}/${name}\n${n.message}`, fact);
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, f]) => f);
}
