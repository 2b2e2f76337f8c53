import { KubeApiError, ResourceVersionExpiredError } from '../watch.errors.js';
import type { KubeApi, ListQuery, ResourceType, WatchEvent } from './kube-api.js';
import type { KubeObject } from './ports.js';

/** Timing of one list+watch loop; every value has a production default in WATCH_DEFAULTS. */
export interface ReflectorTiming {
  /** Server-side watch timeout in seconds, plus up to 20% jitter (the stream ends cleanly and resumes). */
  readonly watchTimeoutSeconds: number;
  /** A stream silent for this long (no event, no bookmark) is dropped and resumed. */
  readonly idleTimeoutMs: number;
  /** First delay after an error; doubles per consecutive error up to backoffMaxMs, with jitter. */
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  /** How often a type the controller may not list (403) or that does not exist (404) is re-tried. */
  readonly unlistableRetryMs: number;
}

export const WATCH_DEFAULTS: ReflectorTiming = {
  watchTimeoutSeconds: 300,
  idleTimeoutMs: 420_000,
  backoffInitialMs: 500,
  backoffMaxMs: 30_000,
  unlistableRetryMs: 60_000,
};

export type ReflectorPhase =
  | 'listing'
  | 'watching'
  | 'backoff'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'invalid'
  | 'stopped';

/** Answers to a list that no retry will change soon: reported, then re-checked slowly. */
const UNLISTABLE: Readonly<Record<number, ReflectorPhase>> = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
};

/** What a loop is doing, for conditions, /debug and metrics. */
export interface ReflectorState {
  readonly phase: ReflectorPhase;
  readonly message: string;
  readonly relists: number;
  readonly restarts: number;
  /** The last error, kept until the next successful list (for /debug and conditions). */
  readonly lastError: string;
}

export interface ReflectorHandlers {
  reset(objects: readonly KubeObject[]): void;
  upsert(object: KubeObject): void;
  remove(object: KubeObject): void;
  /** Called once: after the first list, or when the type turns out unlistable. */
  listed(): void;
  state?(state: ReflectorState): void;
}

export interface ReflectorSpec {
  readonly type: ResourceType;
  readonly query: ListQuery;
  /** Client-side filter (field selector terms the server cannot apply). */
  readonly accept?: (object: KubeObject) => boolean;
  /** Applied to every object before it is handed on (strips ignored fields). */
  readonly transform?: (object: KubeObject) => KubeObject;
}

/**
 * One list+watch loop: list, then watch from the list's resourceVersion; resume from the last
 * resourceVersion after a stream ends; re-list on 410; back off (with jitter) after any other
 * error; report 400/401/403/404 on list as a condition and re-check slowly instead of spinning.
 */
export class Reflector {
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private resourceVersion: string | undefined;
  private failures = 0;
  private listedOnce = false;
  private relists = 0;
  private restarts = 0;
  private lastError = '';

  constructor(
    private readonly api: KubeApi,
    private readonly spec: ReflectorSpec,
    private readonly handlers: ReflectorHandlers,
    private readonly timing: ReflectorTiming = WATCH_DEFAULTS,
    private readonly random: () => number = Math.random,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    this.report('stopped', '');
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        if (this.resourceVersion === undefined) await this.list();
        await this.watch();
        // A watch that was answered and ended cleanly worked: the next error starts the backoff
        // over. (A quiet resource sends no event to reset it, so without this, errors spread over
        // hours would add up to the longest delay, as client-go's backoff manager avoids too.)
        this.failures = 0;
      } catch (e) {
        if (this.abort.signal.aborted) return;
        await this.recover(e);
      }
    }
  }

  private async list(): Promise<void> {
    this.report('listing', '');
    // Filtered and stripped as each page arrives (see ListItemMapper).
    const { items, resourceVersion } = await this.api.list(
      this.spec.type,
      this.spec.query,
      this.abort.signal,
      (o) => (this.accepts(o) ? this.transform(o) : undefined),
    );
    if (this.abort.signal.aborted) return;
    this.handlers.reset(items);
    this.resourceVersion = resourceVersion;
    this.failures = 0;
    this.lastError = '';
    if (!this.listedOnce) {
      this.listedOnce = true;
      this.handlers.listed();
    }
  }

  private async watch(): Promise<void> {
    if (this.abort.signal.aborted || this.resourceVersion === undefined) return;
    this.report('watching', '');
    await this.api.watch(
      this.spec.type,
      {
        ...this.spec.query,
        resourceVersion: this.resourceVersion,
        // Up to 20% longer, so many watches do not all end and restart in the same second.
        timeoutSeconds: Math.round(this.timing.watchTimeoutSeconds * (1 + 0.2 * this.random())),
        idleTimeoutMs: this.timing.idleTimeoutMs,
      },
      (event) => this.onEvent(event),
      this.abort.signal,
    );
  }

  private onEvent(event: WatchEvent): void {
    if (this.abort.signal.aborted) return;
    this.failures = 0;
    const object = event.object;
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        if (this.accepts(object)) this.handlers.upsert(this.transform(object));
        else this.handlers.remove(object);
        break;
      case 'DELETED':
        this.handlers.remove(object);
        break;
      case 'BOOKMARK':
      case 'ERROR':
        break;
    }
    this.resourceVersion = object.metadata.resourceVersion ?? this.resourceVersion;
  }

  private async recover(e: unknown): Promise<void> {
    // 410 comes as an ERROR event in a stream, or as the status of a watch or list-continue request.
    if (
      e instanceof ResourceVersionExpiredError ||
      (e instanceof KubeApiError && e.status === 410)
    ) {
      this.resourceVersion = undefined;
      this.relists++;
      // Re-list at once the first time; repeated expiries back off like any error.
      if (this.failures++ === 0) return;
    }
    const unlistable = e instanceof KubeApiError ? UNLISTABLE[e.status] : undefined;
    if (unlistable) {
      this.resourceVersion = undefined;
      this.report(unlistable, e instanceof Error ? e.message : '');
      if (!this.listedOnce) {
        this.listedOnce = true;
        this.handlers.listed();
      }
      await this.sleep(this.timing.unlistableRetryMs);
      return;
    }
    this.restarts++;
    const base = Math.min(
      this.timing.backoffMaxMs,
      this.timing.backoffInitialMs * 2 ** Math.min(this.failures++, 20),
    );
    // Jitter spreads restarts of many watches; a 429's Retry-After is a floor.
    const floor = e instanceof KubeApiError ? e.retryAfterSeconds * 1000 : 0;
    const delay = Math.max(floor, base / 2 + this.random() * (base / 2));
    this.report('backoff', e instanceof Error ? e.message : String(e));
    await this.sleep(delay);
  }

  private accepts(object: KubeObject): boolean {
    return this.spec.accept?.(object) ?? true;
  }

  private transform(object: KubeObject): KubeObject {
    return this.spec.transform?.(object) ?? object;
  }

  private report(phase: ReflectorPhase, message: string): void {
    if (message !== '') this.lastError = message;
    this.handlers.state?.({
      phase,
      message,
      relists: this.relists,
      restarts: this.restarts,
      lastError: this.lastError,
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const signal = this.abort.signal;
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done);
    });
  }
}
