import {
  KubeApiError,
  ResourceVersionExpiredError,
  type KubeApi,
  type KubeObject,
  type ListItemMapper,
  type ListQuery,
  type ListResult,
  type ResourceType,
  type WatchEvent,
  type WatchRequest,
} from '#watch';

interface Logged {
  readonly rv: number;
  readonly type: ResourceType;
  readonly event: WatchEvent;
}

/** An in-memory KubeApi for unit tests: one rv counter, an event log, injectable faults. */
export class FakeKubeApi implements KubeApi {
  readonly objects = new Map<string, KubeObject>();
  private log: Logged[] = [];
  private compactedTo = 0;
  private rv = 0;
  private readonly streams = new Set<{
    type: ResourceType;
    ns?: string | undefined;
    push: (l: Logged) => void;
    end: (e?: Error) => void;
  }>();
  /** Status to fail the next list with (one-shot). */
  failNextList: number | undefined;
  forbidden = new Set<string>();
  lists = 0;

  write(type: ResourceType, kind: 'ADDED' | 'MODIFIED' | 'DELETED', object: KubeObject): void {
    const rv = ++this.rv;
    const stamped = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    const key = this.key(type, stamped);
    if (kind === 'DELETED') this.objects.delete(key);
    else this.objects.set(key, stamped);
    const entry = { rv, type, event: { type: kind, object: stamped } };
    this.log.push(entry);
    for (const s of this.streams)
      if (same(s.type, type) && (!s.ns || s.ns === stamped.metadata.namespace)) s.push(entry);
  }

  /** Forgets history so watches from older versions get 410. */
  compact(): void {
    this.compactedTo = this.rv;
    this.log = [];
  }

  /** Ends every open watch, with an error or cleanly. */
  dropWatches(error?: Error): void {
    for (const s of [...this.streams]) s.end(error);
  }

  list(
    type: ResourceType,
    query: ListQuery,
    _signal?: AbortSignal,
    each?: ListItemMapper,
  ): Promise<ListResult> {
    this.lists++;
    if (this.forbidden.has(type.plural))
      return Promise.reject(new KubeApiError(403, 'Forbidden', 'forbidden', type.plural));
    if (this.failNextList !== undefined) {
      const status = this.failNextList;
      this.failNextList = undefined;
      return Promise.reject(new KubeApiError(status, 'InternalError', 'injected', type.plural));
    }
    const prefix = `${type.apiVersion}/${type.plural}/`;
    const items = [...this.objects]
      .filter(
        ([k, o]) =>
          k.startsWith(prefix) && (!query.namespace || o.metadata.namespace === query.namespace),
      )
      .map(([, o]) => structuredClone(o))
      .flatMap((o) => {
        const item = each ? each(o) : o;
        return item === undefined ? [] : [item];
      });
    return Promise.resolve({ items, resourceVersion: String(this.rv) });
  }

  watch(
    type: ResourceType,
    req: WatchRequest,
    onEvent: (e: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const from = Number(req.resourceVersion);
    if (from < this.compactedTo)
      return Promise.reject(new ResourceVersionExpiredError(type.plural));
    return new Promise((resolve, reject) => {
      const stream = {
        type,
        ns: req.namespace,
        push: (l: Logged) => {
          if (l.rv > from) onEvent({ type: l.event.type, object: structuredClone(l.event.object) });
        },
        end: (e?: Error) => {
          this.streams.delete(stream);
          if (e) reject(e);
          else resolve();
        },
      };
      for (const l of this.log)
        if (
          same(l.type, type) &&
          (!req.namespace || l.event.object.metadata.namespace === req.namespace)
        )
          stream.push(l);
      this.streams.add(stream);
      signal.addEventListener('abort', () => stream.end(new Error('aborted')));
    });
  }

  get(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const o = this.objects.get(`${type.apiVersion}/${type.plural}/${namespace ?? ''}/${name}`);
    return Promise.resolve(o ? structuredClone(o) : undefined);
  }

  private key(type: ResourceType, o: KubeObject): string {
    return `${type.apiVersion}/${type.plural}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  }
}

function same(a: ResourceType, b: ResourceType): boolean {
  return a.apiVersion === b.apiVersion && a.plural === b.plural;
}
