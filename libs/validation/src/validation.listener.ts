import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Histogram } from 'prom-client';
import { EVENT_BUS } from '#bus';
import type { TemplateConfig } from '#core';
import type { HapticBus, LeaderElectionRunnable, ValidatedRender } from '#events';
import { formatProblem } from './lib/problems.js';
import { checkRuntimeDelta, runtimeDelta, type RuntimeDelta } from './lib/runtime-delta.js';
import type { ValidationResult } from './lib/validate.js';
import { VALIDATION_DURATION } from './validation.metrics.js';
import { ValidationService } from './validation.service.js';

/**
 * render.rendered (latest wins) → validate with the config in force → on success set
 * render.validated and publish validation.completed; otherwise publish validation.failed (the
 * last validated render stays in place). A render whose changes over the render in force are all
 * runtime ones (servers, map entries, certificates, crt-list lines) is checked in those terms;
 * any other passes the structural checks and the directive policy; either is then set at once,
 * its whole `haproxy -c` running once a pod reported the deployment (ValidatedRender.pendingCheck:
 * a reload the pod does not check itself waits for it, and it starts at once for such a render).
 * Leader-only work (LeaderElectionRunnable): webhook
 * dry-runs use ValidationService directly, on every replica.
 */
/** Longest a render's deferred whole check waits for a pod to report its deployment. */
export const WHOLE_CHECK_DEFER_MS = 250;

@Injectable()
export class ValidationListener implements LeaderElectionRunnable, OnModuleDestroy {
  private readonly logger = new Logger('Validation');
  private readonly unsubscribe: (() => void)[] = [];
  /** The render in force when the last term ended: the next term validates only newer ones. */
  private staleRender: ValidatedRender | undefined;
  /** The newest render whose whole configuration passed `haproxy -c`: the rollback point. */
  private lastWhole: ValidatedRender | undefined;
  /** The whole checks run one after another (see checkWhole). */
  private wholeQueue: Promise<unknown> = Promise.resolve();
  /** Renders whose whole check waits for their deployment (see checkWholeAfter). */
  private readonly deferred = new Map<string, () => void>();

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    private readonly validation: ValidationService,
    @InjectMetric(VALIDATION_DURATION.name) private readonly duration: Histogram<'result'>,
  ) {}

  needLeaderElection(): boolean {
    return true;
  }

  /** Leadership gained: validate each new render (one left from an earlier term is not current). */
  startLeading(): void {
    this.unsubscribe.push(
      this.bus.subscribeState(
        'render.rendered',
        (e) => (e.payload === this.staleRender ? undefined : this.validate(e.payload)),
        { name: 'validation' },
      ),
      this.bus.subscribe('deploy.completed', (e) => this.deferred.get(e.payload.hash)?.(), {
        name: 'validation-deployed',
      }),
      this.bus.subscribe('deploy.failed', (e) => this.deferred.get(e.payload.hash)?.(), {
        name: 'validation-deploy-failed',
      }),
    );
  }

  /** Leadership ends: validate nothing more (a validation under way only sets a state). */
  stopLeading(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.staleRender = this.bus.getState('render.rendered');
    return Promise.resolve();
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribe.splice(0)) u();
  }

  /** Validates one render; never throws (a failure is a fact, not an error). */
  async validate(render: ValidatedRender): Promise<void> {
    // Read at validation time: the config in force now, whatever order the states arrived in.
    const config = this.bus.getState('config.current');
    if (!config) {
      await this.bus.publish('validation.failed', {
        hash: render.hash,
        reason: 'no configuration in force',
      });
      return;
    }
    const started = performance.now();
    const delta = this.runtimeOnly(render);
    if (delta) {
      const problems = checkRuntimeDelta(delta, render.outputs);
      if (problems.length === 0) {
        // the runtime operations go now; the whole configuration is checked behind them
        const pendingCheck = this.checkWholeAfter(config.spec, render);
        this.bus.setState('render.validated', { ...render, pendingCheck });
        const durationMs = performance.now() - started;
        this.duration.observe({ result: 'runtime' }, durationMs / 1000);
        await this.bus.publish('validation.completed', { hash: render.hash, durationMs });
        return;
      }
      await this.reject(render, problems.map(formatProblem).join('; '), started);
      return;
    }
    // structural checks and policy first; `haproxy -c` of the whole runs behind the deployment,
    // as the pods check a pushed configuration themselves before they reload (one check on the
    // path, not two in a row or side by side); a reload with the same configuration text (a
    // stored file changed) is not checked by the pods: it waits for this check, which starts now
    const result = await this.structureCheck(config.spec, render);
    if (result.valid) {
      const before = this.bus.getState('render.validated');
      const pendingCheck =
        before?.outputs.haproxyConfig === render.outputs.haproxyConfig
          ? this.checkWhole(config.spec, render)
          : this.checkWholeAfter(config.spec, render);
      this.bus.setState('render.validated', { ...render, pendingCheck });
      const durationMs = performance.now() - started;
      this.duration.observe({ result: 'structure' }, durationMs / 1000);
      await this.bus.publish('validation.completed', { hash: render.hash, durationMs });
      return;
    }
    await this.reject(render, result.problems.map(formatProblem).join('; '), started);
  }

  /** The structural checks and the directive policy of a render (no `haproxy -c`). */
  private structureCheck(
    spec: TemplateConfig['spec'],
    render: ValidatedRender,
  ): Promise<ValidationResult> {
    return couldNotRun(this.validation.validateStructure(spec, render.outputs), 'structure');
  }

  /** The runtime-only delta over the render in force, if the new one has nothing structural. */
  private runtimeOnly(render: ValidatedRender): RuntimeDelta | undefined {
    const before = this.bus.getState('render.validated');
    // a new config may change the policy (allowed directives, dirs): the whole check judges
    if (!before || before.configGeneration !== render.configGeneration) return undefined;
    return runtimeDelta(before.outputs, render.outputs);
  }

  /** `haproxy -c` of the whole render (and the other steps of validateOutputs). */
  private wholeCheck(
    spec: TemplateConfig['spec'],
    render: ValidatedRender,
  ): Promise<ValidationResult> {
    return couldNotRun(this.validation.validate(spec, render.outputs), 'haproxy');
  }

  /**
   * The whole check of a render, started once a pod reported its deployment (runtime operations
   * applied, or a pushed configuration checked by the pod and reloaded; a runtime change's stored
   * copy waits for this check) or after WHOLE_CHECK_DEFER_MS (no pod, or a refused runtime step
   * that must reload): until then the machine's CPU is the change's, not a second `haproxy -c`'s.
   */
  private checkWholeAfter(spec: TemplateConfig['spec'], render: ValidatedRender): Promise<boolean> {
    const started = new Promise<void>((resolve) => {
      const go = (): void => {
        clearTimeout(timer);
        if (this.deferred.get(render.hash) === go) this.deferred.delete(render.hash);
        resolve();
      };
      const timer = setTimeout(go, WHOLE_CHECK_DEFER_MS);
      this.deferred.set(render.hash, go);
    });
    return started.then(() => this.checkWhole(spec, render));
  }

  /**
   * The whole checks, one after another: a render a newer one replaced
   * before its turn is not checked (resolves false: nothing may reload with it), so a burst of
   * changes costs one `haproxy -c` per turn, not one per change.
   */
  private checkWhole(spec: TemplateConfig['spec'], render: ValidatedRender): Promise<boolean> {
    const run = this.wholeQueue.then(() =>
      this.bus.getState('render.validated')?.hash === render.hash
        ? this.runWhole(spec, render)
        : false,
    );
    this.wholeQueue = run.catch(() => undefined);
    return run;
  }

  /**
   * The whole check of a render already on its way to the pods. Passed: it is the
   * new rollback point. Failed: reported (log, validation.failed, the `invalid` metric) and the
   * pods are put back on the last render that passed it, unless a newer one already replaced it.
   */
  private async runWhole(spec: TemplateConfig['spec'], render: ValidatedRender): Promise<boolean> {
    const started = performance.now();
    const result = await this.wholeCheck(spec, render);
    const seconds = (performance.now() - started) / 1000;
    this.duration.observe({ result: result.valid ? 'valid' : 'invalid' }, seconds);
    if (result.valid) {
      this.lastWhole = render;
      return true;
    }
    const reason = `the whole configuration failed haproxy -c (its deployment had begun; the pods check what they reload): ${result.problems.map(formatProblem).join('; ')}`;
    const back = this.lastWhole;
    this.logger.warn(
      `render ${render.hash.slice(0, 12)}: ${reason}; ${back ? `rolling back to ${back.hash.slice(0, 12)}` : 'nothing to roll back to'}`,
    );
    if (back && this.bus.getState('render.validated')?.hash === render.hash)
      this.bus.setState('render.validated', back);
    await this.bus
      .publish('validation.failed', { hash: render.hash, reason })
      .catch(() => undefined);
    return false;
  }

  private async reject(render: ValidatedRender, reason: string, started: number): Promise<void> {
    this.duration.observe({ result: 'invalid' }, (performance.now() - started) / 1000);
    this.logger.warn(`render ${render.hash.slice(0, 12)} rejected: ${reason}`);
    await this.bus.publish('validation.failed', { hash: render.hash, reason });
  }
}

/** A validation that threw is a failed one, at `stage`, saying why it could not run. */
function couldNotRun(
  run: Promise<ValidationResult>,
  stage: 'structure' | 'haproxy',
): Promise<ValidationResult> {
  return run.catch((e: unknown) => ({
    valid: false as const,
    problems: [{ stage, output: 'haproxy.cfg', reason: `validation could not run: ${String(e)}` }],
    haproxy: { ran: false },
  }));
}
