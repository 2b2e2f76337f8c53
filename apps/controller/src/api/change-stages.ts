import type { ChangeStage, DeployStage } from '#events';

/** One pod's share of a change: its deployment and where that deployment's time went. */
export interface PodStages {
  readonly pod: string;
  readonly durationMs: number;
  readonly reloaded: boolean;
  readonly stages: Readonly<Partial<Record<DeployStage, number>>>;
  readonly error?: string;
}

/** One change from the index to the pods, as /debug/changes shows it. */
export interface ChangeRecord {
  readonly correlationId: string;
  readonly change: string;
  readonly receivedAt: string;
  /** The correlation id of the reconcile run that covered it (its first change's id). */
  run?: string;
  outcome: 'pending' | 'applied' | 'failed' | 'superseded';
  reason?: string;
  hash?: string;
  /** index, debounce, render, validate and applied, in ms. */
  readonly stagesMs: Partial<Record<ChangeStage, number>>;
  readonly pods: PodStages[];
}

interface Run {
  readonly changes: ChangeRecord[];
  /** When the covered change received first arrived (for `applied`). */
  readonly receivedAt: number;
  /** Start order: a run applied ends every older one still open. */
  readonly seq: number;
  /** Pods the validated render goes to; undefined until validation passed. */
  expectedPods?: number;
}

export interface ChangeStagesOptions {
  /** Finished changes kept (the newest). */
  readonly keep?: number;
  /** Changes or runs in flight at most (the oldest is dropped as `superseded` beyond it). */
  readonly maxOpen?: number;
  /** Called once per stage duration of a finished change (seconds), e.g. a histogram. */
  readonly observe?: (stage: ChangeStage, seconds: number) => void;
}

/**
 * Follows changes by correlation id through index → debounce → render → validate → deploy (per
 * pod) → applied, and keeps the last N finished ones with their stage timings. Bounded: at most
 * `maxOpen` changes and runs in flight, `keep` finished.
 */
export class ChangeStages {
  private readonly open = new Map<string, { record: ChangeRecord; publishedAt: number }>();
  private readonly runs = new Map<string, Run>();
  private readonly done: ChangeRecord[] = [];
  private seq = 0;

  constructor(private readonly opts: ChangeStagesOptions = {}) {}

  /** A change left the index (`receivedAt`: when the index got it; `at`: when it was published). */
  changed(id: string, change: string, at: number, receivedAt = at): void {
    const record: ChangeRecord = {
      correlationId: id,
      change,
      receivedAt: new Date(receivedAt).toISOString(),
      outcome: 'pending',
      stagesMs: { index: Math.max(0, at - receivedAt) },
      pods: [],
    };
    this.open.set(id, { record, publishedAt: at });
    this.trim(this.open, (o) => this.finish(o.record, 'superseded'));
  }

  /** A reconcile run started at `at`, covering `changes`. */
  triggered(run: string, at: number, changes: readonly string[]): void {
    const covered: ChangeRecord[] = [];
    let receivedAt = at;
    for (const id of changes) {
      const o = this.open.get(id);
      if (!o) continue;
      this.open.delete(id);
      o.record.run = run;
      o.record.stagesMs.debounce = Math.max(0, at - o.publishedAt);
      receivedAt = Math.min(receivedAt, Date.parse(o.record.receivedAt));
      covered.push(o.record);
    }
    if (covered.length === 0) return;
    this.runs.set(run, { changes: covered, receivedAt, seq: ++this.seq });
    this.trim(this.runs, (r) => this.end(r, 'superseded'));
  }

  /** The run's render finished; `stage` is render or validate. */
  stage(run: string, stage: 'render' | 'validate', ms: number, hash?: string): void {
    const r = this.runs.get(run);
    if (!r) return;
    for (const c of r.changes) {
      c.stagesMs[stage] = ms;
      if (hash) c.hash = hash;
    }
  }

  /** The run's render or validation failed: nothing of it reaches the pods. */
  failed(run: string, reason: string): void {
    const r = this.runs.get(run);
    if (!r) return;
    this.runs.delete(run);
    this.end(r, 'failed', reason);
  }

  /** The run's render passed validation and goes to `pods` pods (0: it is applied now). */
  deploying(run: string, pods: number, at: number): void {
    const r = this.runs.get(run);
    if (!r) return;
    r.expectedPods = pods;
    if (this.reported(r) >= pods) this.applied(run, r, at);
  }

  /**
   * One pod took (or refused) the configuration whose render hash is `hash`: it counts for every
   * open run that rendered it, oldest first (a later change that rendered the same, such as the
   * controller's own status write, does not take it from the change that made it). Matched by
   * hash, not by the deployment's correlation id: a pod's worker may run a deployment in the
   * async context of another run (latest wins).
   */
  deployed(hash: string, pod: PodStages, at: number): void {
    const same = [...this.runs]
      .filter(([, r]) => r.changes[0]?.hash === hash)
      .sort((a, b) => a[1].seq - b[1].seq);
    for (const [run, r] of same) {
      for (const c of r.changes) c.pods.push(pod);
      if (r.expectedPods !== undefined && this.reported(r) >= r.expectedPods)
        this.applied(run, r, at);
    }
  }

  private reported(r: Run): number {
    return new Set(r.changes[0]?.pods.map((p) => p.pod)).size;
  }

  /** The newest finished changes, newest first. */
  list(): readonly ChangeRecord[] {
    return [...this.done].reverse();
  }

  /** Changes not finished yet (waiting for a run, or in one). */
  pending(): readonly ChangeRecord[] {
    return [
      ...[...this.runs.values()].flatMap((r) => r.changes),
      ...[...this.open.values()].map((o) => o.record),
    ];
  }

  private applied(run: string, r: Run, at: number): void {
    this.runs.delete(run);
    for (const c of r.changes) c.stagesMs.applied = Math.max(0, at - Date.parse(c.receivedAt));
    const failed = r.changes[0]?.pods.find((p) => p.error !== undefined);
    this.end(r, failed ? 'failed' : 'applied', failed?.error);
    // an older run still open was replaced by this one (latest wins): it will not finish itself
    for (const [id, older] of this.runs) {
      if (older.seq > r.seq) continue;
      this.runs.delete(id);
      this.end(older, 'superseded');
    }
  }

  private end(r: Run, outcome: ChangeRecord['outcome'], reason?: string): void {
    for (const c of r.changes) this.finish(c, outcome, reason);
  }

  private finish(c: ChangeRecord, outcome: ChangeRecord['outcome'], reason?: string): void {
    c.outcome = outcome;
    if (reason !== undefined) c.reason = reason;
    this.done.push(c);
    if (this.done.length > (this.opts.keep ?? 100)) this.done.shift();
    if (outcome !== 'applied' || !this.opts.observe) return;
    for (const [stage, ms] of Object.entries(c.stagesMs))
      this.opts.observe(stage as ChangeStage, ms / 1000);
    for (const p of c.pods) {
      this.opts.observe('deploy', p.durationMs / 1000);
      for (const [stage, ms] of Object.entries(p.stages))
        this.opts.observe(stage as DeployStage, ms / 1000);
    }
  }

  private trim<V>(map: Map<string, V>, drop: (v: V) => void): void {
    const max = this.opts.maxOpen ?? 1000;
    for (const [k, v] of map) {
      if (map.size <= max) return;
      map.delete(k);
      drop(v);
    }
  }
}
