import type { DataplaneCredentials, HaproxyPod, ValidatedRender } from '#events';
import { DataplaneClient, type DataplaneEndpoint } from './client.js';
import { deployFull, type DeployOutcome } from './deploy.js';

/** Result of one deployment to one pod, for events, metrics and /debug/pods. */
export type PodDeployResult =
  | {
      readonly ok: true;
      readonly pod: HaproxyPod;
      readonly hash: string;
      readonly outcome: DeployOutcome;
      readonly durationMs: number;
    }
  | {
      readonly ok: false;
      readonly pod: HaproxyPod;
      readonly hash: string;
      readonly error: unknown;
      readonly durationMs: number;
    };

export interface FleetOptions {
  readonly scheme: 'http' | 'https';
  readonly minDeploymentIntervalMs: number;
  readonly maxParallel: number;
  readonly identity: string;
  readonly timeoutMs: number;
  readonly onResult: (result: PodDeployResult) => void | Promise<void>;
  readonly deploy?: (client: DataplaneClient, render: ValidatedRender) => Promise<DeployOutcome>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/** Per-pod state: what it runs, and the newest render it should run (latest wins). */
interface PodState {
  pod: HaproxyPod;
  deployedHash: string | undefined;
  lastDeployAt: number;
  running: Promise<void> | undefined;
  forceCheck: boolean;
  failures: number;
  /** A kick arrived while the loop was finishing: look again. */
  rekick: boolean;
}

const podKey = (p: HaproxyPod) => `${p.namespace}/${p.name}`;

/**
 * Keeps every HAProxy pod on the newest validated render: one deployment at a time per pod,
 * at most maxParallel pods at once, at least minDeploymentInterval apart per pod; renders that
 * arrive while a pod is busy are coalesced to the newest. A pod that appears gets the current
 * render at once.
 */
export class Fleet {
  private readonly pods = new Map<string, PodState>();
  private render: ValidatedRender | undefined;
  private credentials: DataplaneCredentials | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private stopped = false;
  /** Aborted by stop(): wakes loops waiting out an interval or a backoff. */
  private readonly stopping = new AbortController();
  /** Aborted when in-flight deployments must be abandoned (their requests are cancelled). */
  private readonly abandon = new AbortController();
  private readonly stoppedSignal = new Promise<void>((resolve) =>
    this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }),
  );

  constructor(private readonly opts: FleetOptions) {}

  setRender(render: ValidatedRender): void {
    this.render = render;
    this.kickAll();
  }

  setCredentials(credentials: DataplaneCredentials): void {
    this.credentials = credentials;
    this.kickAll();
  }

  /** Replaces the set of pods; pods that left are forgotten, new ones are deployed to. */
  setPods(pods: readonly HaproxyPod[]): void {
    const keep = new Set(pods.map(podKey));
    for (const key of this.pods.keys()) if (!keep.has(key)) this.pods.delete(key);
    for (const pod of pods) {
      const existing = this.pods.get(podKey(pod));
      if (
        existing &&
        existing.pod.address === pod.address &&
        existing.pod.dataplanePort === pod.dataplanePort
      )
        continue;
      // a new pod, or a pod at a new address (restarted): it gets the full configuration
      this.pods.set(podKey(pod), {
        pod,
        deployedHash: undefined,
        lastDeployAt: -Infinity,
        running: undefined,
        forceCheck: true,
        failures: 0,
        rekick: false,
      });
    }
    this.kickAll();
  }

  /** Re-reads every pod and corrects drift (deployFull pushes nothing where nothing differs). */
  checkDrift(): void {
    for (const s of this.pods.values()) s.forceCheck = true;
    this.kickAll();
  }

  /** What each pod runs, for /debug/pods. */
  status(): { pod: HaproxyPod; deployedHash: string | undefined; busy: boolean }[] {
    return [...this.pods.values()].map((s) => ({
      pod: s.pod,
      deployedHash: s.deployedHash,
      busy: s.running !== undefined,
    }));
  }

  /**
   * Starts no new deployment; deployments in flight finish, unless `deadline` aborts first: then
   * their requests are cancelled and nothing more is written. Resolves when none runs.
   */
  async stop(deadline?: AbortSignal): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    const abandon = () => this.abandon.abort(deadline?.reason);
    if (deadline?.aborted) abandon();
    else deadline?.addEventListener('abort', abandon, { once: true });
    await Promise.all([...this.pods.values()].map((s) => s.running ?? Promise.resolve()));
    deadline?.removeEventListener('abort', abandon);
  }

  private kickAll(): void {
    for (const s of this.pods.values()) this.kick(s);
  }

  private kick(s: PodState): void {
    if (this.stopped) return;
    if (s.running) {
      s.rekick = true;
      return;
    }
    // onResult failures (a closed bus at shutdown) must not become unhandled rejections
    s.running = this.loop(s)
      .catch(() => undefined)
      .finally(() => {
        s.running = undefined;
        if (s.rekick) {
          s.rekick = false;
          this.kick(s);
        }
      });
  }

  private needsWork(s: PodState): boolean {
    return (
      this.render !== undefined &&
      this.credentials !== undefined &&
      this.pods.get(podKey(s.pod)) === s &&
      (s.forceCheck || s.deployedHash !== this.render.hash)
    );
  }

  private async loop(s: PodState): Promise<void> {
    const now = this.opts.now ?? (() => Date.now());
    const sleep = this.opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    while (!this.stopped && this.needsWork(s)) {
      // after failures, back off exponentially (1 s, 2 s, ... 30 s) instead of hammering the pod
      const backoff = s.failures === 0 ? 0 : Math.min(30_000, 1000 * 2 ** (s.failures - 1));
      const wait = s.lastDeployAt + Math.max(this.opts.minDeploymentIntervalMs, backoff) - now();
      if (wait > 0) await Promise.race([sleep(wait), this.stoppedSignal]);
      if (this.stopped || !this.needsWork(s)) return;
      await this.slot();
      if (this.stopped) {
        this.release();
        return;
      }
      try {
        await this.deployOnce(s, this.render!, this.credentials!);
      } finally {
        this.release();
      }
    }
  }

  private async deployOnce(
    s: PodState,
    render: ValidatedRender,
    creds: DataplaneCredentials,
  ): Promise<void> {
    const started = performance.now();
    s.forceCheck = false;
    const endpoint: DataplaneEndpoint = {
      url: `${this.opts.scheme}://${s.pod.address.includes(':') ? `[${s.pod.address}]` : s.pod.address}:${s.pod.dataplanePort}`,
      username: creds.username,
      password: creds.password,
      identity: this.opts.identity,
      timeoutMs: this.opts.timeoutMs,
      signal: this.abandon.signal,
    };
    const deploy =
      this.opts.deploy ??
      ((c, r) => deployFull(c, r.outputs, { reloadTimeoutMs: this.opts.timeoutMs }));
    try {
      const outcome = await deploy(new DataplaneClient(endpoint), render);
      s.deployedHash = render.hash;
      s.failures = 0;
      s.lastDeployAt = (this.opts.now ?? Date.now)();
      await this.opts.onResult({
        ok: true,
        pod: s.pod,
        hash: render.hash,
        outcome,
        durationMs: performance.now() - started,
      });
    } catch (error) {
      s.lastDeployAt = (this.opts.now ?? Date.now)();
      s.deployedHash = undefined; // unknown now: the next attempt re-reads the pod
      s.failures++;
      await this.opts.onResult({
        ok: false,
        pod: s.pod,
        hash: render.hash,
        error,
        durationMs: performance.now() - started,
      });
    }
  }

  private async slot(): Promise<void> {
    while (this.active >= this.opts.maxParallel)
      await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}
