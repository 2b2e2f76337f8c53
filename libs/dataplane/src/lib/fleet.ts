import type { DataplaneCredentials, HaproxyPod, ValidatedRender } from '#events';
import { DataplaneRequestError } from '../dataplane.errors.js';
import { DataplaneClient, type DataplaneEndpoint } from './client.js';
import type { DeployFn, FleetOptions, PodDeployState, PodState } from './fleet-types.js';
import { readPod, syncPod, type SyncOptions, type SyncResult } from './sync-engine.js';
import type { PodFiles } from './sync-plan.js';

export type {
  DeployFn,
  FleetOptions,
  PodDeployResult,
  PodDeployState,
  PodReadBack,
} from './fleet-types.js';

const podKey = (p: HaproxyPod) => `${p.namespace}/${p.name}`;

const isUnauthorized = (e: unknown) => e instanceof DataplaneRequestError && e.status === 401;

/**
 * Keeps every HAProxy pod on the newest validated render with the runtime-first engine (syncPod):
 * one deployment at a time per pod, at most maxParallel pods at once; runtime-only changes go at
 * once, and so do reloading ones that arrive while no reload of the pod is under way; reloads of
 * changes that pile up during a reload start at most once per minDeploymentInterval per pod; all
 * are staggered across pods;
 * renders that arrive while a pod is busy are coalesced to the newest. A pod that appears is read
 * back first (onReadBack), then gets the current render at once.
 */
export class Fleet {
  private readonly pods = new Map<string, PodState>();
  private render: ValidatedRender | undefined;
  private credentials: DataplaneCredentials | undefined;
  /** The credentials in force before the last rotation: tried when a pod refuses the new ones. */
  private previousCredentials: DataplaneCredentials | undefined;
  private active = 0;
  /** When the next reload of another pod may start, and the pod whose reload set it. */
  private stagger: { readonly pod: PodState; readonly nextAt: number } | undefined;
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
    if (render.hash !== this.render?.hash)
      for (const s of this.pods.values()) {
        s.renderSetAt = performance.now();
        if (s.reloading) s.burst = true;
      }
    this.render = render;
    this.kickAll();
  }

  setCredentials(credentials: DataplaneCredentials): void {
    const current = this.credentials;
    if (
      current &&
      (current.username !== credentials.username || current.password !== credentials.password)
    )
      this.previousCredentials = current;
    this.credentials = credentials;
    this.kickAll();
  }

  /** Replaces the set of pods; pods that left are forgotten, new ones are read back and deployed to. */
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
      // a new pod, or a pod at a new address (restarted): read back, then everything at once
      this.pods.set(podKey(pod), {
        pod,
        deployedHash: undefined,
        lastDeployAt: -Infinity,
        lastReloadAt: -Infinity,
        lastReloadStartAt: -Infinity,
        lastReloadReasons: [],
        runtimeOperations: 0,
        lastError: undefined,
        running: undefined,
        forceCheck: true,
        needsReadBack: true,
        failures: 0,
        partial: false,
        rekick: false,
        known: undefined,
        persisting: undefined,
        supersede: undefined,
        seq: 0,
        renderSetAt: performance.now(),
        burst: false,
        reloading: false,
      });
    }
    this.opts.onState?.();
    this.kickAll();
  }

  /** Re-reads every pod and corrects drift (syncPod changes nothing where nothing differs). */
  checkDrift(): void {
    for (const s of this.pods.values()) s.forceCheck = true;
    this.kickAll();
  }

  /** What each pod runs, for /debug/pods and the bus. */
  status(): PodDeployState[] {
    const iso = (t: number) => (Number.isFinite(t) ? new Date(t).toISOString() : null);
    return [...this.pods.values()].map((s) => ({
      pod: podKey(s.pod),
      deployedHash: s.deployedHash ?? null,
      busy: s.running !== undefined || s.persisting !== undefined,
      lastReloadAt: iso(s.lastReloadAt),
      lastReloadReasons: s.lastReloadReasons,
      runtimeOperations: s.runtimeOperations,
      lastError: s.lastError ?? null,
      consecutiveFailures: s.failures,
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
    const settled = (p: Promise<unknown> | undefined) =>
      (p ?? Promise.resolve()).catch(() => undefined);
    await Promise.all([...this.pods.values()].map((s) => settled(s.running)));
    await Promise.all([...this.pods.values()].map((s) => settled(s.persisting)));
    deadline?.removeEventListener('abort', abandon);
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private sleep(ms: number): Promise<void> {
    const sleep = this.opts.sleep ?? ((t: number) => new Promise<void>((r) => setTimeout(r, t)));
    return Promise.race([sleep(ms), this.stoppedSignal]);
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
        this.opts.onState?.();
        if (s.rekick) {
          s.rekick = false;
          this.kick(s);
        }
      });
  }

  private needsWork(s: PodState): boolean {
    if (this.credentials === undefined || this.pods.get(podKey(s.pod)) !== s) return false;
    if (s.needsReadBack) return true;
    return this.render !== undefined && (s.forceCheck || s.deployedHash !== this.render.hash);
  }

  private async loop(s: PodState): Promise<void> {
    await this.opts.after?.catch(() => undefined);
    while (!this.stopped && this.needsWork(s)) {
      // after failures, back off exponentially (1 s, 2 s, ... 30 s) instead of hammering the pod
      const backoff = s.failures === 0 ? 0 : Math.min(30_000, 1000 * 2 ** (s.failures - 1));
      const wait = s.lastDeployAt + backoff - this.now();
      if (wait > 0) await this.sleep(wait);
      if (this.stopped || !this.needsWork(s)) return;
      await this.slot();
      if (this.stopped) {
        this.release();
        return;
      }
      try {
        if (s.needsReadBack) await this.readBack(s);
        else await this.deployOnce(s, this.render!);
      } finally {
        this.release();
      }
    }
  }

  private endpoint(s: PodState, creds: DataplaneCredentials): DataplaneEndpoint {
    const host = s.pod.address.includes(':') ? `[${s.pod.address}]` : s.pod.address;
    return {
      url: `${this.opts.scheme}://${host}:${s.pod.dataplanePort}`,
      username: creds.username,
      password: creds.password,
      identity: this.opts.identity,
      timeoutMs: this.opts.timeoutMs,
      signal: this.abandon.signal,
      ...(this.opts.tls ? { tls: this.opts.tls } : {}),
    };
  }

  /** Runs `fn` with the current credentials; a pod still refusing them (401) gets the previous ones. */
  private async withCredentials<T>(
    s: PodState,
    fn: (c: DataplaneClient) => Promise<T>,
  ): Promise<T> {
    const current = this.credentials!;
    try {
      return await fn(new DataplaneClient(this.endpoint(s, current)));
    } catch (e) {
      const previous = this.previousCredentials;
      if (!isUnauthorized(e) || !previous) throw e;
      return await fn(new DataplaneClient(this.endpoint(s, previous)));
    }
  }

  private async readBack(s: PodState): Promise<void> {
    const read = this.opts.read ?? readPod;
    let files: PodFiles | undefined;
    try {
      files = await this.withCredentials(s, read);
    } catch (e) {
      s.lastError = e instanceof Error ? e.message : String(e);
    }
    s.needsReadBack = false;
    this.opts.onReadBack?.({ pod: s.pod, files });
  }

  /**
   * Before a reload: when the change is one of a burst (it arrived while a reload of this pod
   * ran), waits out minDeploymentInterval since this pod's last reload began; a lone change (no
   * reload under way when it arrived) goes at once, so reloads are paced only where they pile
   * up. Always
   * waits for the stagger after the last reload of another pod began (replicas never reload in
   * the same instant; it never delays one pod's next change). Counted from the start, as a reload
   * itself takes a `haproxy -c` and a re-exec. False: nothing to wait for.
   */
  private async reloadGate(s: PodState, paced: boolean): Promise<boolean> {
    const now = this.now();
    const staggered = this.stagger && this.stagger.pod !== s ? this.stagger.nextAt : now;
    const interval = paced ? this.opts.minDeploymentIntervalMs : 0;
    const notBefore = Math.max(s.lastReloadStartAt + interval, staggered, now);
    s.lastReloadStartAt = notBefore;
    s.reloading = true;
    this.stagger = { pod: s, nextAt: notBefore + (this.opts.staggerMs ?? 200) };
    if (notBefore <= now) return false;
    await this.sleep(notBefore - now);
    return true;
  }

  /**
   * One deployment of `render` to the pod. A runtime-only one returns once its runtime operations
   * are applied: its stored copy is written behind (PodState.persisting) while the next render's
   * runtime operations go, so a change arriving meanwhile does not wait for the previous one's
   * storage write (the pod's `haproxy -c` of the whole configuration).
   */
  private async deployOnce(s: PodState, render: ValidatedRender): Promise<void> {
    // a deployment that reads the pod reads it after the stored copy in flight is written
    if (s.persisting && (s.forceCheck || !s.known)) await s.persisting.catch(() => undefined);
    const started = performance.now();
    const queue = s.renderSetAt === undefined ? 0 : Math.max(0, started - s.renderSetAt);
    s.renderSetAt = undefined;
    const paced = s.burst;
    s.burst = false;
    // a stored copy in flight is not a deployment that stopped part-way (it ends by itself)
    const partial = s.partial && !s.persisting;
    // a drift check reads the pod; otherwise the last deployment says what it holds
    const known = s.forceCheck || partial ? undefined : s.known;
    s.forceCheck = false;
    s.known = undefined;
    const seq = ++s.seq;
    const deploy: DeployFn = this.opts.deploy ?? ((c, r, o) => syncPod(c, r.outputs, o));
    let reported = false;
    let applied = () => undefined as void;
    let supersede = () => undefined as void;
    const superseded = new Promise<void>((r) => (supersede = r));
    const appliedNow = new Promise<void>((r) => (applied = r));
    const options: SyncOptions = {
      reloadTimeoutMs: this.opts.timeoutMs,
      beforeReload: () => this.reloadGate(s, paced),
      recover: partial,
      onFirstWrite: () => (s.partial = true),
      // the reload is over once HAProxy runs the new configuration (what follows is bookkeeping)
      onReloaded: () => {
        if (s.seq === seq) s.reloading = false;
      },
      ...(render.pendingCheck ? { wholeCheck: render.pendingCheck } : {}),
      ...(known ? { known, priorStorage: s.persisting, supersedePrior: s.supersede } : {}),
      superseded,
      // runtime changes are served from here: reported now, the stored copy is written after
      onApplied: (a) => {
        if (reported) return; // a retry after a 409 applies again: reported once
        reported = true;
        if (s.seq === seq) s.known = a.known;
        applied();
        return this.succeeded(s, render, a, started, queue);
      },
    };
    const run = this.withCredentials(s, (c) => deploy(c, render, options)).then(
      async (outcome) => {
        if (s.seq === seq) {
          s.partial = false;
          s.known = outcome.known;
        }
        if (!reported) await this.succeeded(s, render, outcome, started, queue);
        return outcome.version;
      },
      async (error: unknown) => {
        await this.failed(s, render, error, started);
        throw error;
      },
    );
    let ended = false;
    const settled = run.then(
      () => void (ended = true),
      () => void (ended = true),
    );
    void settled.then(() => {
      if (s.seq === seq) s.reloading = false;
    });
    await Promise.race([settled, appliedNow]);
    if (ended) return;
    // applied, its stored copy still being written: the pod takes the next render meanwhile
    s.persisting = run;
    s.supersede = supersede;
    void settled.then(() => {
      if (s.persisting !== run) return;
      s.persisting = undefined;
      s.supersede = undefined;
      this.opts.onState?.();
      this.kick(s); // a failure leaves work (deployedHash unknown)
    });
  }

  private async failed(
    s: PodState,
    render: ValidatedRender,
    error: unknown,
    started: number,
  ): Promise<void> {
    s.lastDeployAt = this.now();
    s.deployedHash = undefined; // unknown now: the next attempt re-reads the pod
    s.known = undefined;
    s.failures++;
    s.lastError = error instanceof Error ? error.message : String(error);
    await this.opts.onResult({
      ok: false,
      pod: s.pod,
      hash: render.hash,
      error,
      durationMs: performance.now() - started,
    });
  }

  /** Records and reports a deployment whose changes HAProxy now serves (`queue`: ms it waited). */
  private async succeeded(
    s: PodState,
    render: ValidatedRender,
    outcome: SyncResult,
    started: number,
    queue: number,
  ): Promise<void> {
    s.deployedHash = render.hash;
    s.failures = 0;
    s.lastError = undefined;
    s.lastDeployAt = this.now();
    s.runtimeOperations += outcome.operations.filter((o) => o.runtime).length;
    if (outcome.reloaded) {
      s.lastReloadAt = s.lastDeployAt;
      s.lastReloadReasons = outcome.reloadReasons;
    }
    await this.opts.onResult({
      ok: true,
      pod: s.pod,
      hash: render.hash,
      // `queue`: from the render's hand-over until this deployment started (a deployment ahead)
      outcome: { ...outcome, stages: { ...outcome.stages, queue } },
      durationMs: performance.now() - started,
    });
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
