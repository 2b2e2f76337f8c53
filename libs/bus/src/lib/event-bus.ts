import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { BoundedQueue } from './bounded-queue.js';
import type {
  BusCause,
  BusEvent,
  FactHandler,
  PublishOptions,
  StateHandler,
  TopicMap,
  Unsubscribe,
} from './envelope.js';
import { RingBuffer } from './ring-buffer.js';
import { StateSubscription } from './state-subscription.js';
import { FactSubscription, type SlowSubscriberReport } from './fact-subscription.js';

export interface EventBusOptions {
  /** Events a fact subscriber may have queued before publishers wait (back-pressure). */
  readonly queueCapacity?: number;
  /** Events held before start(); publishers wait beyond it. */
  readonly startupCapacity?: number;
  /** Recent events kept for /debug. */
  readonly historySize?: number;
  /** A publish blocked this long by one subscriber is reported through onSlowSubscriber. */
  readonly slowAfterMs?: number;
  readonly now?: () => number;
  readonly newCorrelationId?: () => string;
  readonly onHandlerError?: (error: unknown, event: BusEvent, subscriber: string) => void;
  readonly onSlowSubscriber?: (report: SlowSubscriberReport) => void;
}

/** Queue depth and pressure per topic, for metrics and /debug. */
export interface TopicStats {
  readonly topic: string;
  readonly kind: 'fact' | 'state';
  readonly subscribers: number;
  readonly queued: number;
  readonly blockedPublishers: number;
  readonly slowReports: number;
}

const context = new AsyncLocalStorage<BusCause>();

/** The cause a handler of `event` runs under (its payload is not kept: see BusCause). */
function causeOf(event: BusEvent): BusCause {
  return Object.freeze({
    seq: event.seq,
    topic: event.topic,
    correlationId: event.correlationId,
    ...(event.causedBy !== undefined ? { causedBy: event.causedBy } : {}),
    at: event.at,
  });
}

/** The event being handled right now (inside a handler), without its payload, if any. */
export function currentEvent(): BusCause | undefined {
  return context.getStore();
}

/**
 * The typed event bus. Fact topics (F) are ordered and never dropped: each subscriber has a bounded
 * queue, and a full queue makes publishers wait (and is reported when it lasts). State topics (S)
 * hold the latest value; a subscriber gets the current value at once and then every change, with
 * superseded values coalesced and counted. Before start(), published facts are buffered so that
 * subscribers registered during start-up miss nothing.
 */
export class EventBus<F extends TopicMap, S extends TopicMap> {
  private seq = 0;
  private started = false;
  private draining = false;
  private closed = false;
  private readonly startup: BoundedQueue<BusEvent>;
  private readonly facts = new Map<string, Set<FactSubscription>>();
  private readonly states = new Map<string, Set<StateSubscription>>();
  private readonly stateValues = new Map<string, BusEvent>();
  private readonly recent: RingBuffer<BusEvent>;
  private readonly opts: Required<Omit<EventBusOptions, 'onHandlerError' | 'onSlowSubscriber'>> &
    Pick<EventBusOptions, 'onHandlerError' | 'onSlowSubscriber'>;

  constructor(options: EventBusOptions = {}) {
    this.opts = {
      queueCapacity: 1024,
      startupCapacity: 10_000,
      historySize: 500,
      slowAfterMs: 1_000,
      now: () => Date.now(),
      newCorrelationId: () => randomUUID(),
      ...options,
    };
    this.startup = new BoundedQueue(this.opts.startupCapacity);
    this.recent = new RingBuffer(this.opts.historySize);
  }

  /** Subscribes to a fact topic; events arrive one at a time, in publish order. */
  subscribe<K extends keyof F & string>(
    topic: K,
    handler: FactHandler<K, F[K]>,
    options: { readonly name?: string; readonly capacity?: number } = {},
  ): Unsubscribe {
    const sub = new FactSubscription(
      topic,
      options.name ?? `${topic}#${this.facts.get(topic)?.size ?? 0}`,
      options.capacity ?? this.opts.queueCapacity,
      handler as FactHandler<string, unknown>,
      (event, run) => context.run(causeOf(event), run),
      this.opts.onHandlerError,
    );
    const set = this.facts.get(topic) ?? new Set<FactSubscription>();
    set.add(sub);
    this.facts.set(topic, set);
    return () => {
      set.delete(sub);
      sub.close();
    };
  }

  /** Publishes a fact; resolves once every subscriber has it queued (waits under back-pressure). */
  async publish<K extends keyof F & string>(
    topic: K,
    payload: F[K],
    options: PublishOptions = {},
  ): Promise<BusEvent<K, F[K]>> {
    if (this.closed) throw new Error(`bus is closed; cannot publish ${topic}`);
    const event = this.envelope(topic, payload, options);
    if (!this.started || this.draining) await this.startup.push(event);
    else await this.dispatch(event);
    return event;
  }

  /** Sets a state value; every state subscriber receives it (or a newer one). */
  setState<K extends keyof S & string>(
    topic: K,
    value: S[K],
    options: PublishOptions = {},
  ): BusEvent<K, S[K]> {
    const event = this.envelope(topic, value, options, false);
    this.stateValues.set(topic, event);
    for (const sub of this.states.get(topic) ?? []) sub.offer(event);
    return event;
  }

  /** The current value of a state topic, or undefined before the first setState. */
  getState<K extends keyof S & string>(topic: K): S[K] | undefined {
    return this.stateValues.get(topic)?.payload as S[K] | undefined;
  }

  /** Subscribes to a state topic; the current value (if any) is delivered at once. */
  subscribeState<K extends keyof S & string>(
    topic: K,
    handler: StateHandler<K, S[K]>,
    options: { readonly name?: string } = {},
  ): Unsubscribe {
    const sub = new StateSubscription(
      options.name ?? `${topic}#${this.states.get(topic)?.size ?? 0}`,
      handler as StateHandler<string, unknown>,
      (event, run) => context.run(causeOf(event), run),
      this.opts.onHandlerError,
    );
    const set = this.states.get(topic) ?? new Set<StateSubscription>();
    set.add(sub);
    this.states.set(topic, set);
    const current = this.stateValues.get(topic);
    if (current) sub.offer(current);
    return () => {
      set.delete(sub);
      sub.close();
    };
  }

  /** Ends start-up buffering: buffered facts go out in order, then publishing is direct. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.draining = true;
    for (let e = this.startup.shift(); e; e = this.startup.shift()) await this.dispatch(e);
    this.draining = false;
  }

  /** Resolves when every subscriber has handled everything queued so far. */
  async idle(): Promise<void> {
    const all = [...this.facts.values(), ...this.states.values()].flatMap((s) => [...s]);
    await Promise.all(all.map((s) => s.idle()));
  }

  /** Stops delivery; blocked publishers are released. */
  close(): void {
    this.closed = true;
    this.startup.releaseAll();
    for (const set of this.facts.values()) for (const s of set) s.close();
    for (const set of this.states.values()) for (const s of set) s.close();
  }

  /** Recent facts, oldest first (for /debug/events); state values are read with getState. */
  history(): readonly BusEvent[] {
    return this.recent.toArray();
  }

  /** Per-topic queue depth and pressure. */
  stats(): readonly TopicStats[] {
    const fact = [...this.facts].map(([topic, subs]) => ({
      topic,
      kind: 'fact' as const,
      subscribers: subs.size,
      queued: [...subs].reduce((n, s) => n + s.queued, 0),
      blockedPublishers: [...subs].reduce((n, s) => n + s.blocked, 0),
      slowReports: [...subs].reduce((n, s) => n + s.slowReports, 0),
    }));
    const state = [...this.states].map(([topic, subs]) => ({
      topic,
      kind: 'state' as const,
      subscribers: subs.size,
      queued: [...subs].reduce((n, s) => n + (s.pending ? 1 : 0), 0),
      blockedPublishers: 0,
      slowReports: 0,
    }));
    return [...fact, ...state];
  }

  private envelope<K extends string, P>(
    topic: K,
    payload: P,
    options: PublishOptions,
    record = true,
  ): BusEvent<K, P> {
    const cause = options.cause ?? context.getStore();
    const event: BusEvent<K, P> = Object.freeze({
      seq: ++this.seq,
      topic,
      payload,
      correlationId: options.correlationId ?? cause?.correlationId ?? this.opts.newCorrelationId(),
      ...(cause ? { causedBy: cause.seq } : {}),
      at: this.opts.now(),
    });
    // Facts only: state values can be large (rendered outputs) and are already held as the current value.
    if (record) this.recent.add(event);
    return event;
  }

  private async dispatch(event: BusEvent): Promise<void> {
    for (const sub of this.facts.get(event.topic) ?? []) {
      await sub.enqueue(event, this.opts.slowAfterMs, this.opts.onSlowSubscriber);
    }
  }
}
