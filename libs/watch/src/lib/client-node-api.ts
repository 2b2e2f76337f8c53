import * as http from 'node:http';
import * as https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeStatusOf } from '#core';
import {
  KubeApiError,
  KubeTransportError,
  ResourceVersionExpiredError,
  SilentStreamError,
} from '../watch.errors.js';
import {
  resourcePath,
  type KubeApi,
  type ListItemMapper,
  type ListQuery,
  type ListResult,
  type ResourceType,
  type WatchEvent,
  type WatchRequest,
} from './kube-api.js';
import type { KubeObject } from './ports.js';

export interface ClientNodeApiOptions {
  /** Timeout of a list or get request, in milliseconds. */
  readonly requestTimeoutMs: number;
  /** Page size of lists. */
  readonly pageSize: number;
}

const DEFAULTS: ClientNodeApiOptions = { requestTimeoutMs: 30_000, pageSize: 500 };

type Query = Record<string, string | number | boolean | undefined>;

/**
 * KubeApi over the API server named by a client-node KubeConfig: client-node supplies the
 * cluster address, TLS and credentials (tokens, certificates, exec plug-ins); lists and watch
 * streams are read here so every request has a timeout and a silent stream is noticed.
 */
export class ClientNodeKubeApi implements KubeApi {
  private readonly options: ClientNodeApiOptions;

  constructor(
    private readonly kc: KubeConfig,
    options: Partial<ClientNodeApiOptions> = {},
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  get server(): string {
    return this.kc.getCurrentCluster()?.server ?? '(no cluster)';
  }

  async list(
    type: ResourceType,
    query: ListQuery,
    signal: AbortSignal,
    each?: ListItemMapper,
  ): Promise<ListResult> {
    const path = resourcePath(type, query.namespace);
    const items: KubeObject[] = [];
    let token: string | undefined;
    let resourceVersion = '';
    do {
      const page = (await this.getJson(
        path,
        {
          labelSelector: query.labelSelector,
          fieldSelector: query.fieldSelector,
          limit: this.options.pageSize,
          continue: token,
        },
        signal,
      )) as { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };
      // Mapped page by page: the raw (unstripped) objects of a page are garbage before the next
      // page is read, so a list of 31,000 objects never holds them all at once.
      for (const raw of page.items ?? []) {
        const item = each ? each(raw) : raw;
        if (item !== undefined) items.push(item);
      }
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
      token = page.metadata?.continue || undefined;
    } while (token);
    return { items, resourceVersion };
  }

  async get(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    try {
      const ac = new AbortController();
      return (await this.getJson(resourcePath(type, namespace, name), {}, ac.signal)) as KubeObject;
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 404) return undefined;
      throw e;
    }
  }

  async watch(
    type: ResourceType,
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const path = resourcePath(type, request.namespace);
    const res = await this.open(
      path,
      {
        watch: true,
        resourceVersion: request.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: request.timeoutSeconds,
        labelSelector: request.labelSelector,
        fieldSelector: request.fieldSelector,
      },
      signal,
      request.idleTimeoutMs,
    );
    if (res.statusCode !== 200) throw await errorOf(res, path);
    await readEvents(res, path, request.idleTimeoutMs, onEvent, signal);
  }

  private async getJson(path: string, query: Query, signal: AbortSignal): Promise<unknown> {
    const res = await this.open(path, query, signal, this.options.requestTimeoutMs);
    const body = await readBody(res, path, this.options.requestTimeoutMs);
    if (res.statusCode !== 200) {
      throw statusError(res.statusCode ?? 0, body, path, res.headers['retry-after']);
    }
    try {
      return JSON.parse(body) as unknown;
    } catch (cause) {
      throw new KubeTransportError(path, cause);
    }
  }

  private async open(
    path: string,
    query: Query,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<http.IncomingMessage> {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new KubeTransportError(path, 'the kubeconfig names no current cluster');
    const url = new URL(cluster.server.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    const opts: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
    await this.kc.applyToHTTPSOptions(opts);
    const mod = url.protocol === 'http:' ? http : https;
    return new Promise((resolve, reject) => {
      const req = mod.request(url, { ...opts, signal }, resolve);
      // Until headers arrive, the whole timeout applies; the body has its own idle timer.
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`no response within ${timeoutMs} ms`)));
      req.on('response', () => req.setTimeout(0));
      req.on('error', (e) => reject(new KubeTransportError(path, e)));
      req.end();
    });
  }
}

function readBody(res: http.IncomingMessage, path: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => res.destroy(new Error('response body timed out')), timeoutMs);
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', (e) => {
      clearTimeout(timer);
      reject(new KubeTransportError(path, e));
    });
    res.on('aborted', () => reject(new KubeTransportError(path, 'response aborted')));
  });
}

async function errorOf(res: http.IncomingMessage, path: string): Promise<Error> {
  try {
    const body = await readBody(res, path, 5000);
    return statusError(res.statusCode ?? 0, body, path, res.headers['retry-after']);
  } catch (e) {
    return e instanceof Error ? e : new KubeTransportError(path, e);
  }
}

/** A KubeApiError from a `Status` body (or whatever the server sent). */
function statusError(
  status: number,
  body: string,
  path: string,
  retryAfter?: string,
): KubeApiError {
  const { reason, message } = kubeStatusOf(status, body);
  const after = Number(retryAfter ?? 0);
  return new KubeApiError(
    status,
    reason,
    message,
    path,
    Number.isFinite(after) ? Math.min(after, 60) : 0,
  );
}

/** Reads newline-delimited watch events until the stream ends, errors or goes silent. */
function readEvents(
  res: http.IncomingMessage,
  path: string,
  idleMs: number,
  onEvent: (event: WatchEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        res.destroy();
        reject(err);
      } else resolve();
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(new SilentStreamError(path, idleMs)), idleMs);
    };
    arm();
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      arm();
      buffered += chunk;
      let nl: number;
      while (!settled && (nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line !== '') {
          try {
            dispatch(line, path, onEvent);
          } catch (e) {
            finish(e instanceof Error ? e : new KubeTransportError(path, e));
          }
        }
      }
    });
    res.on('end', () =>
      signal.aborted ? finish(new KubeTransportError(path, 'aborted')) : finish(),
    );
    res.on('error', (e) => finish(new KubeTransportError(path, e)));
    res.on('close', () =>
      finish(
        signal.aborted || !res.complete ? new KubeTransportError(path, 'stream closed') : undefined,
      ),
    );
  });
}

function dispatch(line: string, path: string, onEvent: (event: WatchEvent) => void): void {
  let event: WatchEvent;
  try {
    event = JSON.parse(line) as WatchEvent;
  } catch (cause) {
    throw new KubeTransportError(path, cause);
  }
  if (event.type === 'ERROR') {
    const status = event.object as unknown as { code?: number; reason?: string; message?: string };
    if (status.code === 410) throw new ResourceVersionExpiredError(path);
    throw new KubeApiError(
      status.code ?? 500,
      status.reason ?? 'Error',
      status.message ?? 'watch error',
      path,
    );
  }
  onEvent(event);
}
