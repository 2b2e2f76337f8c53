import type {
  V1Container,
  V1ContainerState,
  V1ContainerStatus,
  V1Probe,
} from '@kubernetes/client-node';
import type { LaunchPlan } from './container-command.js';
import { GroupProcess, type ProcessExit, type ProcessSpec } from './process-group.js';
import { ProbeLoop, runProbe, type ProbeTarget } from './probes.js';

/** Restart back-off, like the kubelet's (10 s doubling to 5 min there; shorter by default here). */
export interface BackoffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
  /** A container that ran this long without exiting starts its back-off afresh. */
  readonly resetAfterMs: number;
}

/** What a container runtime needs from its pod. */
export interface ContainerDeps {
  readonly restartPolicy: 'Always' | 'OnFailure' | 'Never';
  readonly backoff: BackoffPolicy;
  readonly probeTarget: ProbeTarget;
  readonly probePeriodScale: number;
  /** Called whenever something the pod status shows has changed. */
  readonly onChange: () => void;
}

const now = (): string => new Date().toISOString();

/**
 * One container of a pod: its process (or the sibling that plays it), restarts with back-off,
 * startup/readiness/liveness probes, and the containerStatus the kubelet would report.
 */
export class ContainerRuntime {
  restartCount = 0;
  private proc: GroupProcess | undefined;
  private state: V1ContainerState = { waiting: { reason: 'ContainerCreating' } };
  private lastState: V1ContainerState = {};
  private startedAtMs = 0;
  private backoffMs: number;
  private restartTimer: NodeJS.Timeout | undefined;
  private probes: ProbeLoop[] = [];
  private readiness: ProbeLoop | undefined;
  private startupDone = false;
  private stopping = false;
  private spec: ProcessSpec | undefined;
  private plan: LaunchPlan | undefined;
  private probeTarget: ProbeTarget;

  constructor(
    readonly container: V1Container,
    private readonly deps: ContainerDeps,
  ) {
    this.backoffMs = deps.backoff.initialMs;
    this.probeTarget = deps.probeTarget;
  }

  get running(): boolean {
    return this.proc?.running === true;
  }

  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Ready as the readiness probe says, or as soon as it runs when it has none. */
  get ready(): boolean {
    if (this.state.running === undefined || !this.startupDone) return false;
    return this.readiness?.ok ?? true;
  }

  /** Reports a problem that keeps the container from starting (missing Secret, unplayable image). */
  setWaiting(reason: string, message: string): void {
    const changed = this.state.waiting?.reason !== reason || this.state.waiting.message !== message;
    this.state = { waiting: { reason, message } };
    if (changed) this.deps.onChange();
  }

  /** True when the container ran to completion with exit code 0 (what an init container must do). */
  get completed(): boolean {
    return this.state.terminated?.exitCode === 0;
  }

  /** True once a plan was given (the container is started, or played by a sibling). */
  get launched(): boolean {
    return this.plan !== undefined;
  }

  /** Starts the process for a plan; a covered container (no spec) follows its sibling through {@link mirror}. */
  start(plan: LaunchPlan, spec: ProcessSpec | undefined): void {
    this.spec = spec;
    this.plan = plan;
    if (spec === undefined) {
      this.state = {
        waiting: { reason: 'ContainerCreating', message: `played by ${plan.coveredBy}` },
      };
      this.deps.onChange();
      return;
    }
    // exec probes and hooks run with the container's environment.
    this.probeTarget = { ...this.deps.probeTarget, env: spec.env };
    this.proc = new GroupProcess(spec);
    void this.proc.exited.then((exit) => this.onExit(exit));
    this.startedAtMs = Date.now();
    this.state = { running: { startedAt: new Date(this.startedAtMs) } };
    this.startProbes();
    this.deps.onChange();
  }

  /** For a container played by a sibling (HAProxy by the agent): running while the sibling runs. */
  mirror(sibling: ContainerRuntime): void {
    if (this.plan?.coveredBy === undefined || this.stopping) return;
    const running = sibling.running;
    if (running === (this.state.running !== undefined)) return;
    if (running) {
      this.startedAtMs = Date.now();
      this.state = { running: { startedAt: new Date(this.startedAtMs) } };
      this.startProbes();
    } else {
      this.stopProbes();
      this.state = {
        waiting: { reason: 'ContainerCreating', message: `waiting for ${sibling.container.name}` },
      };
    }
    this.deps.onChange();
  }

  private startProbes(): void {
    this.stopProbes();
    const c = this.container;
    const make = (probe: V1Probe, initial: boolean, onChange: (ok: boolean) => void): ProbeLoop => {
      const loop = new ProbeLoop(
        probe,
        this.probeTarget,
        onChange,
        initial,
        this.deps.probePeriodScale,
      );
      this.probes.push(loop);
      return loop;
    };
    const afterStartup = (): void => {
      this.startupDone = true;
      if (c.readinessProbe !== undefined)
        this.readiness = make(c.readinessProbe, false, () => this.deps.onChange());
      if (c.livenessProbe !== undefined) {
        make(c.livenessProbe, true, (ok) => {
          if (!ok && this.proc?.running === true)
            void this.proc.stop((c.livenessProbe?.terminationGracePeriodSeconds ?? 30) * 1000);
        });
      }
      this.deps.onChange();
    };
    this.startupDone = false;
    if (c.startupProbe !== undefined) {
      make(c.startupProbe, false, (ok) => {
        if (ok && !this.startupDone) afterStartup();
      });
    } else afterStartup();
  }

  private stopProbes(): void {
    for (const p of this.probes) p.stop();
    this.probes = [];
    this.readiness = undefined;
  }

  private onExit(exit: ProcessExit): void {
    this.stopProbes();
    const exitCode = exit.code ?? 128 + (exit.signal === 'SIGKILL' ? 9 : 15);
    const terminated = {
      exitCode,
      reason: exitCode === 0 ? 'Completed' : 'Error',
      ...(exit.signal === null ? {} : { signal: exit.signal === 'SIGKILL' ? 9 : 15 }),
      startedAt: new Date(this.startedAtMs),
      finishedAt: new Date(),
    };
    if (this.stopping) {
      this.state = { terminated };
      this.deps.onChange();
      return;
    }
    const policy = this.deps.restartPolicy;
    const restart = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
    if (!restart) {
      this.state = { terminated };
      this.deps.onChange();
      return;
    }
    this.lastState = { terminated };
    if (Date.now() - this.startedAtMs > this.deps.backoff.resetAfterMs)
      this.backoffMs = this.deps.backoff.initialMs;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.deps.backoff.maxMs);
    this.state = {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${Math.round(delay / 1000)}s restarting failed container ${this.container.name} (exit ${exitCode}) at ${now()}`,
      },
    };
    this.deps.onChange();
    this.restartTimer = setTimeout(() => {
      if (this.stopping || this.spec === undefined || this.plan === undefined) return;
      this.restartCount++;
      this.start(this.plan, this.spec);
    }, delay);
  }

  /** Runs the preStop hook, then SIGTERM, then SIGKILL once the grace period is over. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.stopProbes();
    const deadline = Date.now() + graceMs;
    const preStop = this.container.lifecycle?.preStop;
    if (preStop !== undefined && this.proc?.running === true) {
      const hook: V1Probe = {
        ...(preStop.httpGet ? { httpGet: preStop.httpGet } : {}),
        ...(preStop.exec ? { exec: preStop.exec } : {}),
        timeoutSeconds: Math.max(1, Math.floor(graceMs / 1000)),
      };
      if (hook.httpGet !== undefined || hook.exec !== undefined)
        await runProbe(hook, this.probeTarget);
      const sleepMs = Math.min(
        ((preStop as { sleep?: { seconds?: number } }).sleep?.seconds ?? 0) * 1000,
        deadline - Date.now(),
      );
      if (sleepMs > 0) await new Promise((r) => setTimeout(r, sleepMs));
    }
    if (this.proc?.running === true) await this.proc.stop(Math.max(0, deadline - Date.now()));
    if (this.state.running !== undefined) {
      this.state = {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          startedAt: new Date(this.startedAtMs),
          finishedAt: new Date(),
        },
      };
    }
  }

  /** The containerStatus entry for the pod status. */
  status(): V1ContainerStatus {
    return {
      name: this.container.name,
      image: this.container.image ?? '',
      imageID: '',
      ...(this.proc?.pid === undefined ? {} : { containerID: `node-sim://${this.proc.pid}` }),
      ready: this.ready,
      started: this.state.running !== undefined && this.startupDone,
      restartCount: this.restartCount,
      state: this.state,
      lastState: this.lastState,
    };
  }
}
