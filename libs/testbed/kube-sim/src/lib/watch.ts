import type { ServerResponse } from 'node:http';
import type { Scope } from './api-types.js';
import type { ClientConnection, ClientIdentity } from './client-faults.js';
import { served } from './api-shape.js';
import { selectorOf } from './list.js';
import { groupVersion } from './resource-type.js';
import { ApiError } from './status.js';
import type { Store, StoreEvent } from './store.js';
import { toTable } from './table.js';
import type { KubeObject, WatchEventType } from './types.js';

/** Options of one watch beyond its scope. */
export interface WatchOptions {
  readonly asTable: boolean;
  readonly includeObject: string;
  readonly bookmarkIntervalMs: number;
  readonly expire: boolean;
  readonly now: () => number;
  readonly client: ClientIdentity;
}

/** An open watch stream; `close` ends it from the server side, `abort` resets its connection. */
export type OpenWatch = ClientConnection;

/** Serves one watch: replays history from a resourceVersion, then streams live changes. */
export class WatchStream implements OpenWatch {
  private unsubscribe: () => void = () => undefined;
  private timers: NodeJS.Timeout[] = [];
  private headersSent = false;
  private closed = false;
  private frozen = false;
  private readonly match: (o: KubeObject) => boolean;

  constructor(
    private readonly store: Store,
    private readonly s: Scope,
    private readonly res: ServerResponse,
    private readonly opts: WatchOptions,
    private readonly onClose: () => void,
  ) {
    this.match = selectorOf(s);
  }

  /** Starts the stream: headers are flushed at once (client-node waits for them). */
  start(): void {
    this.res.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
    });
    this.res.flushHeaders();
    this.res.on('close', () => this.close());
    if (this.opts.expire) {
      const e = new ApiError(
        410,
        'Expired',
        `too old resource version: ${this.s.query.get('resourceVersion') ?? '0'} (${this.store.resourceVersion}) [injected by kube-sim]`,
      );
      this.write('ERROR', e.toStatus());
      this.close();
      return;
    }
    const q = this.s.query;
    const rv = q.get('resourceVersion');
    try {
      const initial = q.get('sendInitialEvents') === 'true' || !rv || rv === '0';
      if (initial) this.sendState(q.get('sendInitialEvents') === 'true');
      else
        for (const e of this.store.changesSince(this.s.type.storageKey, Number(rv)))
          this.deliver(e);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      this.write('ERROR', err.toStatus());
      this.close();
      return;
    }
    this.unsubscribe = this.store.subscribe((e) => {
      if (e.storageKey === this.s.type.storageKey) this.deliver(e);
    });
    this.schedule();
  }

  get client(): ClientIdentity {
    return this.opts.client;
  }

  /** Delivers nothing more (the client is behind a simulated partition). */
  freeze(): void {
    this.frozen = true;
  }

  /** Resets the connection without ending the response. */
  abort(): void {
    this.frozen = true;
    this.res.destroy();
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
    this.res.end();
    this.onClose();
  }

  private schedule(): void {
    const timeout = Number(this.s.query.get('timeoutSeconds') ?? 0);
    if (timeout > 0) this.timers.push(setTimeout(() => this.close(), timeout * 1000));
    if (this.s.query.get('allowWatchBookmarks') === 'true' && this.opts.bookmarkIntervalMs > 0) {
      const t = setInterval(() => this.bookmark(), this.opts.bookmarkIntervalMs);
      this.timers.push(t);
    }
  }

  private sendState(withEndBookmark: boolean): void {
    for (const o of this.store.list(this.s.type.storageKey, this.s.namespace)) {
      if (this.match(o)) this.write('ADDED', served(this.s.type, o));
    }
    if (withEndBookmark) this.bookmark({ 'k8s.io/initial-events-end': 'true' });
  }

  private bookmark(annotations?: Record<string, string>): void {
    const t = this.s.type;
    const metadata = {
      resourceVersion: String(this.store.resourceVersion),
      ...(annotations ? { annotations } : {}),
    };
    this.write('BOOKMARK', { apiVersion: groupVersion(t), kind: t.kind, metadata });
  }

  /** Applies namespace and selectors the way a real server does: leaving the selection is DELETED. */
  private deliver(e: StoreEvent): void {
    const ns = this.s.namespace;
    if (ns !== undefined && e.object.metadata.namespace !== ns) return;
    const now = e.type !== 'DELETED' && this.match(e.object);
    const before = e.previous !== undefined && this.match(e.previous);
    let type: WatchEventType | undefined;
    if (e.type === 'DELETED') type = before ? 'DELETED' : undefined;
    else if (now)
      type = before ? 'MODIFIED' : 'ADDED'; // entering the selection is ADDED
    else if (before) type = 'DELETED';
    if (type) this.write(type, served(this.s.type, e.object));
  }

  private write(type: WatchEventType, object: unknown): void {
    if (this.closed || this.frozen) return;
    let payload = object;
    if (this.opts.asTable && (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED')) {
      payload = toTable(
        this.s.type,
        [object as KubeObject],
        { resourceVersion: (object as KubeObject).metadata.resourceVersion },
        {
          includeObject: this.opts.includeObject,
          headers: !this.headersSent,
          now: this.opts.now(),
        },
      );
      this.headersSent = true;
    }
    this.res.write(`${JSON.stringify({ type, object: payload })}\n`);
  }
}
