/** The object an Event is about (core/v1 ObjectReference). */
export interface InvolvedObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
}

/** What to record: a Warning or Normal Event with a CamelCase reason and a message. */
export interface EventRecord {
  readonly involved: InvolvedObject;
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** One write to the API: create a new Event, or raise the count of one already written. */
export type EventWrite =
  | {
      readonly op: 'create';
      readonly key: string;
      readonly name: string;
      readonly namespace: string;
      readonly record: EventRecord;
      readonly time: string;
    }
  | {
      readonly op: 'update';
      readonly key: string;
      readonly name: string;
      readonly namespace: string;
      readonly count: number;
      readonly time: string;
    };

interface Seen {
  name: string;
  namespace: string;
  count: number;
  lastMs: number;
}

const MESSAGE_LIMIT = 1024;

/**
 * Aggregates Events as client-go's EventCorrelator does: the same object, type, reason and
 * message within `windowMs` raise the count of the Event already written instead of adding
 * one; at most `maxKeys` are remembered (oldest forgotten first).
 */
export class EventAggregator {
  private readonly seen = new Map<string, Seen>();
  private serial = 0;

  constructor(
    private readonly windowMs = 10 * 60_000,
    private readonly maxKeys = 4096,
  ) {}

  /** The write recording `record` at `nowMs` needs. */
  record(record: EventRecord, nowMs: number): EventWrite {
    const message = record.message.slice(0, MESSAGE_LIMIT);
    const r = { ...record, message };
    const i = r.involved;
    const key = JSON.stringify([
      i.kind,
      i.namespace ?? '',
      i.name,
      i.uid ?? '',
      r.type,
      r.reason,
      message,
    ]);
    const time = new Date(nowMs).toISOString();
    const prior = this.seen.get(key);
    if (prior && nowMs - prior.lastMs <= this.windowMs) {
      prior.count++;
      prior.lastMs = nowMs;
      this.seen.delete(key);
      this.seen.set(key, prior);
      return {
        op: 'update',
        key,
        name: prior.name,
        namespace: prior.namespace,
        count: prior.count,
        time,
      };
    }
    const namespace = i.namespace ?? 'default';
    const name = `${i.name}.${(nowMs * 1000 + (this.serial++ % 1000)).toString(16)}`;
    this.seen.delete(key);
    this.seen.set(key, { name, namespace, count: 1, lastMs: nowMs });
    while (this.seen.size > this.maxKeys) this.seen.delete(this.seen.keys().next().value as string);
    return { op: 'create', key, name, namespace, record: r, time };
  }

  /** Forgets an Event the API no longer has (a failed update): the next repeat creates anew. */
  forget(key: string): void {
    this.seen.delete(key);
  }
}
