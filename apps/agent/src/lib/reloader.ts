import type { ReloadOutcome } from '../haproxy/haproxy-process.js';
import type { Mutex } from './mutex.js';

/** A reload as the Dataplane API reports it (`reload` schema). */
export interface ReloadRecord {
  id: string;
  status: 'in_progress' | 'succeeded' | 'failed';
  reload_timestamp?: number;
  response?: string;
}

/** How many reloads are kept (and persisted). */
const HISTORY = 200;

interface Pending {
  readonly record: ReloadRecord;
  readonly done: Promise<ReloadRecord>;
  readonly fire: () => void;
}

/**
 * Coalesces reload requests: every write within `delayMs` of the first shares one reload and one
 * Reload-ID (`YYYY-MM-DD-N`). Reloads run under the HAProxy lock, so runtime commands never hit
 * a worker that is being replaced.
 */
export class Reloader {
  private pending: Pending | undefined;
  private readonly history: ReloadRecord[] = [];
  private day = '';
  private seq = 0;
  private closed = false;

  constructor(
    private readonly exec: () => Promise<ReloadOutcome>,
    private readonly lock: Mutex,
    private readonly delayMs: number,
    private readonly onDone: (r: ReloadRecord, o: ReloadOutcome | undefined) => void = () => {},
    previous: readonly ReloadRecord[] = [],
  ) {
    // Continue the history of a previous agent run, so ids are never handed out twice.
    for (const r of previous.slice(-HISTORY)) {
      this.history.push(
        r.status === 'in_progress'
          ? { ...r, status: 'failed', response: 'agent restarted during the reload' }
          : r,
      );
    }
    const last = this.history.at(-1)?.id;
    const m = last ? /^(\d{4}-\d{2}-\d{2})-(\d+)$/.exec(last) : null;
    if (m) {
      this.day = m[1] ?? '';
      this.seq = Number(m[2]);
    }
  }

  /** Queues a reload (or joins the queued one) and returns its record at once. */
  request(): ReloadRecord {
    return this.queue().record;
  }

  /** Queues (or joins) a reload, starts it now and resolves once it is done. */
  now(): Promise<ReloadRecord> {
    const p = this.queue();
    p.fire();
    return p.done;
  }

  /** The reloads this agent knows, oldest first. */
  list(): readonly ReloadRecord[] {
    return this.history;
  }

  get(id: string): ReloadRecord | undefined {
    return this.history.find((r) => r.id === id);
  }

  /** Stops accepting reloads and lets a queued one run at once. */
  async close(): Promise<void> {
    this.closed = true;
    const p = this.pending;
    if (p) {
      p.fire();
      await p.done;
    }
  }

  private queue(): Pending {
    if (this.pending) return this.pending;
    if (this.closed) throw new Error('agent is shutting down');
    const record: ReloadRecord = { id: this.nextId(), status: 'in_progress' };
    this.history.push(record);
    if (this.history.length > HISTORY) this.history.shift();
    let fire!: () => void;
    const started = new Promise<void>((resolve) => (fire = resolve));
    const timer = setTimeout(fire, this.delayMs);
    const done = started.then(() => {
      clearTimeout(timer);
      if (this.pending?.record === record) this.pending = undefined;
      return this.lock.run(() => this.execute(record));
    });
    this.pending = { record, done, fire };
    return this.pending;
  }

  private async execute(record: ReloadRecord): Promise<ReloadRecord> {
    let outcome: ReloadOutcome | undefined;
    try {
      outcome = await this.exec();
      record.status = outcome.ok ? 'succeeded' : 'failed';
      record.response = outcome.response;
    } catch (e) {
      record.status = 'failed';
      record.response = e instanceof Error ? e.message : String(e);
    }
    record.reload_timestamp = Math.floor(Date.now() / 1000);
    this.onDone(record, outcome);
    return record;
  }

  private nextId(): string {
    const day = new Date().toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.seq = 0;
    }
    this.seq += 1;
    return `${day}-${this.seq}`;
  }
}
