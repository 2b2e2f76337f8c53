import {
  ClientCuts,
  matchesClient,
  type ClientConnection,
  type ClientIdentity,
  type ClientMatch,
  type CutRule,
} from './client-faults.js';
import { ApiError } from './status.js';

/** A rule failing the next `count` requests whose path matches. */
export interface FailRule {
  /** A substring of the request path, or a regular expression tested against it. */
  readonly path: string | RegExp;
  /** How many matching requests fail (then the rule is spent). */
  count: number;
  /** 500 (InternalError) or 429 (TooManyRequests with Retry-After). */
  readonly code: 500 | 429 | 503;
  readonly retryAfterSeconds?: number;
  /** Only this HTTP method (any when unset). */
  readonly method?: string;
  /** Whether watch requests count too (default true). */
  readonly watches?: boolean;
  /** Only requests of this client (any client when unset). */
  readonly client?: ClientMatch;
}

/** Fault injection on demand; every method is also reachable through POST /kube-sim/faults/<name>. */
export class Faults {
  private rules: FailRule[] = [];
  private expireWatches = 0;
  private latency = 0;
  /** Set by the server: closes every open watch, returns how many. */
  closeWatchesHook: () => number = () => 0;
  /** Set by the server: forgets all history. */
  compactHook: () => void = () => undefined;
  /** Set by the server: the open connections (watches) a cut acts on. */
  connectionsHook: () => Iterable<ClientConnection> = () => [];
  /** The clients cut off the API. */
  readonly cuts = new ClientCuts();

  /**
   * Cuts one client (selected by User-Agent and/or bearer token) off the API while every other
   * client keeps it: mode `fail` answers 503 (or `code`), `drop` resets connections, `hang` never
   * answers. Open watches of that client are ended, reset or frozen at once. Returns an id for
   * `restore`.
   */
  cutOff(rule: CutRule): string {
    return this.cuts.add(rule, this.connectionsHook());
  }

  /** Lifts one cut (or all); connections held by a `hang` cut are reset. */
  restore(id?: string): void {
    this.cuts.restore(id);
  }

  /** Closes every open watch now (clients see the stream end). Returns the number closed. */
  closeWatches(): number {
    return this.closeWatchesHook();
  }

  /** The next `count` watch requests get one ERROR event holding a 410 Expired Status. */
  expireNextWatch(count = 1): void {
    this.expireWatches += count;
  }

  /** Fails the next `count` requests matching `path` with 500 or 429 (+Retry-After). */
  failRequests(rule: Omit<FailRule, 'count'> & { count?: number }): void {
    this.rules.push({ ...rule, count: rule.count ?? 1 });
  }

  /** Adds latency (milliseconds) before every request is answered; 0 removes it. */
  setLatency(ms: number): void {
    this.latency = Math.max(0, ms);
  }

  /** Compacts history: every watch or continue from an older resourceVersion gets 410. */
  compact(): void {
    this.compactHook();
  }

  /** Removes every pending fault. */
  clear(): void {
    this.cuts.restore();
    this.rules = [];
    this.expireWatches = 0;
    this.latency = 0;
  }

  get latencyMs(): number {
    return this.latency;
  }

  /** Consumes one pending watch expiry, if any. */
  takeWatchExpiry(): boolean {
    if (this.expireWatches <= 0) return false;
    this.expireWatches--;
    return true;
  }

  /** The error for this request if a rule matches (consuming one of its count). */
  takeFailure(
    method: string,
    path: string,
    watch: boolean,
    client: ClientIdentity = { userAgent: '', token: '' },
  ): ApiError | undefined {
    const rule = this.rules.find(
      (r) =>
        r.count > 0 &&
        (r.client === undefined || matchesClient(r.client, client)) &&
        (r.method === undefined || r.method.toUpperCase() === method) &&
        (r.watches !== false || !watch) &&
        (typeof r.path === 'string' ? path.includes(r.path) : r.path.test(path)),
    );
    if (!rule) return undefined;
    rule.count--;
    this.rules = this.rules.filter((r) => r.count > 0);
    return injectedError(rule.code, rule.retryAfterSeconds);
  }
}

/** The Status a fault answers with: 429 (with Retry-After), 503 or 500. */
export function injectedError(code: 500 | 429 | 503, retryAfterSeconds?: number): ApiError {
  if (code === 429) {
    const after = retryAfterSeconds ?? 1;
    return new ApiError(
      429,
      'TooManyRequests',
      'the server has received too many requests and has asked us to try again later',
      { retryAfterSeconds: after, causes: [] },
      { 'Retry-After': String(after) },
    );
  }
  if (code === 503)
    return new ApiError(
      503,
      'ServiceUnavailable',
      'the server is currently unable to handle the request (injected by kube-sim)',
    );
  return new ApiError(500, 'InternalError', 'Internal error occurred: injected by kube-sim', {
    causes: [{ message: 'injected by kube-sim' }],
  });
}
