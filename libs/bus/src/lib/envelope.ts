/** Any map of topic name to payload type. */
export type TopicMap = object;

/** One delivered event: an immutable fact with its identity, time and correlation id. */
export interface BusEvent<K extends string = string, P = unknown> {
  /** Monotonic sequence number within this bus. */
  readonly seq: number;
  readonly topic: K;
  readonly payload: P;
  /** Carried from the trigger to everything it causes. */
  readonly correlationId: string;
  /** seq of the event that caused this one, when known. */
  readonly causedBy?: number;
  readonly at: number;
}

/**
 * What handlers run under, and what a publish inherits: the event without its payload. The
 * payload is left out because async resources created while handling (timers, sockets, file
 * requests) keep the store alive, and a state value's payload can be a whole rendered config.
 */
export type BusCause = Omit<BusEvent, 'payload'>;

/** Options for a publish: an explicit cause or correlation id (otherwise inherited from the handler running). */
export interface PublishOptions {
  readonly cause?: BusCause;
  readonly correlationId?: string;
}

/** Handler of a fact topic; awaited before the next event of that subscription is delivered. */
export type FactHandler<K extends string, P> = (event: BusEvent<K, P>) => void | Promise<void>;

/** Handler of a state topic; `skipped` counts values replaced by a newer one before delivery. */
export type StateHandler<K extends string, P> = (
  event: BusEvent<K, P>,
  info: { readonly skipped: number },
) => void | Promise<void>;

export type Unsubscribe = () => void;
