import type { KubeObject } from './ports.js';

/** Where a resource type lives: `/api/v1` or `/apis/<group>/<version>`, and its plural. */
export interface ResourceType {
  readonly apiVersion: string;
  readonly plural: string;
}

/** Query of a list or watch. */
export interface ListQuery {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/**
 * Applied to every listed object as its page arrives (undefined leaves it out), so a list of many
 * pages never holds the raw objects of earlier pages: only what `each` returns is kept.
 */
export type ListItemMapper = (object: KubeObject) => KubeObject | undefined;

export interface ListResult {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject;
}

export interface WatchRequest extends ListQuery {
  readonly resourceVersion: string;
  /** Server-side timeout of the watch, in seconds (the server ends the stream cleanly). */
  readonly timeoutSeconds: number;
  /** Client-side: give up on a stream that sends nothing (not even bookmarks) for this long. */
  readonly idleTimeoutMs: number;
}

/**
 * The API server as watch needs it. `watch` resolves when the stream ends normally and rejects
 * on any error (an ERROR event with a 410 rejects with ResourceVersionExpiredError).
 */
export interface KubeApi {
  /** The API server's URL, for logs and readiness reasons (fakes may leave it out). */
  readonly server?: string;
  /** Lists every page; `each` (when given) maps or drops each item as its page arrives. */
  list(
    type: ResourceType,
    query: ListQuery,
    signal: AbortSignal,
    each?: ListItemMapper,
  ): Promise<ListResult>;
  watch(
    type: ResourceType,
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void>;
  get(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined>;
}

/** The REST path of a collection (namespaced when `namespace` is given) or of one object. */
export function resourcePath(type: ResourceType, namespace?: string, name?: string): string {
  const base = type.apiVersion.includes('/')
    ? `/apis/${type.apiVersion}`
    : `/api/${type.apiVersion}`;
  const ns = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const obj = name ? `/${encodeURIComponent(name)}` : '';
  return `${base}${ns}/${type.plural}${obj}`;
}
