import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Scope } from './api-types.js';
import type { Api } from './api.js';
import type { Deleter } from './delete.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  serverVersion,
} from './discovery.js';
import { clientOf, type ClientConnection, type ClientIdentity } from './client-faults.js';
import { injectedError, type Faults } from './faults.js';
import { parseBody, readBody, sendError, sendJson } from './http-util.js';
import { list } from './list.js';
import { openApiDocument, openApiIndex, openApiV2Protobuf } from './openapi.js';
import type { Registry } from './registry.js';
import { pathNotFound, route, type Route } from './router.js';
import { scaleRequest } from './scale.js';
import { ApiError, errors } from './status.js';
import type { Store } from './store.js';
import { toTable, wantsTable } from './table.js';
import { WatchStream, type OpenWatch } from './watch.js';

/** One answered request, as `KubeSim.requests` keeps it. */
export interface RequestRecord {
  readonly method: string;
  readonly path: string;
  readonly code: number;
  readonly watch: boolean;
}

/** Everything the HTTP layer dispatches to. */
export interface HandlerDeps {
  readonly api: Api;
  readonly deleter: Deleter;
  readonly store: Store;
  readonly registry: Registry;
  readonly faults: Faults;
  readonly watches: Set<OpenWatch>;
  /** Accepted bearer tokens; empty when any request is accepted. */
  readonly tokens: ReadonlySet<string>;
  readonly bookmarkIntervalMs: number;
  readonly now: () => number;
  readonly control: (action: string, body: unknown) => Promise<unknown>;
  readonly log: (entry: RequestRecord) => void;
}

type ResourceRoute = Extract<Route, { kind: 'resource' }>;

/** Answers one HTTP request as kube-apiserver would. */
export async function handle(
  d: HandlerDeps,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', 'http://kube-sim');
  const watch =
    ['true', '1'].includes(url.searchParams.get('watch') ?? '') || url.pathname.includes('/watch/');
  res.on('close', () => d.log({ method, path: url.pathname, code: res.statusCode, watch }));
  const client = clientOf(req);
  try {
    const r = route(d.registry, url.pathname);
    if (r?.kind !== 'control' && (await cutOff(d.faults, client, req, res))) return;
    if (d.tokens.size > 0 && !d.tokens.has(client.token)) throw errors.unauthorized();
    if (!r) throw pathNotFound();
    const isWatch =
      r.kind === 'resource' &&
      (r.watchPath || ['true', '1'].includes(url.searchParams.get('watch') ?? ''));
    if (r.kind !== 'control') {
      if (d.faults.latencyMs > 0) await new Promise((ok) => setTimeout(ok, d.faults.latencyMs));
      const injected = d.faults.takeFailure(method, url.pathname, isWatch, client);
      if (injected) throw injected;
    }
    await dispatch(d, r, req, res, url, isWatch, client);
  } catch (e) {
    if (e instanceof ApiError) sendError(res, e);
    else sendError(res, errors.internal(e instanceof Error ? e.message : String(e)));
  }
}

/**
 * Applies a client cut (Faults.cutOff) to this request: true when the request is finished (reset
 * or held until the cut is lifted); a `fail` cut throws its Status.
 */
async function cutOff(
  faults: Faults,
  client: ClientIdentity,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  const cut = faults.cuts.find(client);
  if (!cut) return false;
  if (cut.rule.mode === 'fail') throw injectedError(cut.rule.code ?? 503);
  if (cut.rule.mode === 'drop') {
    req.socket.destroy();
    return true;
  }
  await new Promise<void>((resolve) => {
    const held: ClientConnection = {
      client,
      close: () => undefined,
      freeze: () => undefined,
      abort: () => {
        req.socket.destroy();
        resolve();
      },
    };
    faults.cuts.act(cut.id, held);
    res.on('close', () => {
      faults.cuts.release(cut.id, held);
      resolve();
    });
  });
  return true;
}

async function dispatch(
  d: HandlerDeps,
  r: Route,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  isWatch: boolean,
  client: ClientIdentity,
): Promise<void> {
  const method = req.method ?? 'GET';
  const getOnly = () => {
    if (method !== 'GET') throw errors.methodNotAllowed();
  };
  switch (r.kind) {
    case 'version':
      getOnly();
      return sendJson(res, 200, serverVersion);
    case 'health':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      return void res.end('ok');
    case 'api':
      getOnly();
      return sendJson(res, 200, apiVersions(req.headers.host ?? '127.0.0.1'));
    case 'apis':
      getOnly();
      return sendJson(res, 200, apiGroupList(d.registry));
    case 'group':
      getOnly();
      return sendOrNotFound(res, apiGroup(d.registry, r.group));
    case 'resources':
      getOnly();
      return sendOrNotFound(res, apiResourceList(d.registry, r.group, r.version));
    case 'openapi-v3':
      return sendJson(res, 200, openApiIndex(d.registry));
    case 'openapi-gv':
      return sendOrNotFound(res, openApiDocument(d.registry, r.group, r.version));
    case 'openapi-v2': {
      const doc = openApiV2Protobuf();
      res.writeHead(200, {
        'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
        'Content-Length': String(doc.length),
      });
      return void res.end(doc);
    }
    case 'control': {
      if (method !== 'POST' && method !== 'GET') throw errors.methodNotAllowed();
      const body = parseBody(await readBody(req), 'application/json');
      return sendJson(res, 200, (await d.control(r.action, body)) ?? { ok: true });
    }
    case 'resource':
      return resource(d, r, req, res, url, isWatch, client);
  }
}

function sendOrNotFound(res: ServerResponse, body: unknown): void {
  if (body === undefined) throw pathNotFound();
  sendJson(res, 200, body);
}

function scopeOf(r: ResourceRoute, url: URL, userAgent: string): Scope {
  const sub = r.subresource;
  if (
    sub !== undefined &&
    !(sub === 'status' && r.type.statusSubresource) &&
    !(sub === 'scale' && r.type.scale)
  )
    throw pathNotFound();
  return {
    type: r.type,
    namespace: r.namespace,
    name: r.name,
    subresource: sub === 'status' || sub === 'scale' ? sub : undefined,
    query: url.searchParams,
    userAgent,
  };
}

async function resource(
  d: HandlerDeps,
  r: ResourceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  isWatch: boolean,
  client: ClientIdentity,
): Promise<void> {
  const s = scopeOf(r, url, client.userAgent);
  const method = req.method ?? 'GET';
  if (s.subresource === 'scale') {
    if (isWatch || s.name === undefined) throw pathNotFound();
    const body =
      method === 'GET' ? undefined : parseBody(await readBody(req), req.headers['content-type']);
    const out = await scaleRequest(d.api, s, method, body, req.headers['content-type'] ?? '');
    return sendJson(res, out.code, out.object, out.warnings);
  }
  const asTable = wantsTable(req.headers.accept);
  const includeObject = url.searchParams.get('includeObject') ?? 'Metadata';
  if (method === 'GET' && isWatch) {
    const w: WatchStream = new WatchStream(
      d.store,
      s,
      res,
      {
        asTable,
        includeObject,
        bookmarkIntervalMs: d.bookmarkIntervalMs,
        expire: d.faults.takeWatchExpiry(),
        now: d.now,
        client,
      },
      () => d.watches.delete(w),
    );
    d.watches.add(w);
    w.start();
    return;
  }
  if (method === 'GET') {
    if (s.name !== undefined) {
      const o = d.api.get(s);
      return sendJson(
        res,
        200,
        asTable
          ? toTable(
              s.type,
              [o],
              { resourceVersion: o.metadata.resourceVersion },
              { includeObject, headers: true, now: d.now() },
            )
          : o,
      );
    }
    const body = list(d.store, s);
    return sendJson(
      res,
      200,
      asTable
        ? toTable(s.type, body.items, body.metadata, { includeObject, headers: true, now: d.now() })
        : body,
    );
  }
  const body =
    method === 'DELETE' || method === 'POST' || method === 'PUT' || method === 'PATCH'
      ? parseBody(await readBody(req), req.headers['content-type'])
      : undefined;
  if (s.type.namespaced && s.namespace === undefined && method !== 'GET')
    throw errors.methodNotAllowed();
  if (method === 'POST' && s.name === undefined) {
    const out = await d.api.create(s, body);
    return sendJson(res, out.code, out.object, out.warnings);
  }
  if (method === 'DELETE' && s.name === undefined)
    return sendJson(res, 200, await d.deleter.deleteCollection(s, body));
  if (s.name === undefined) throw errors.methodNotAllowed();
  switch (method) {
    case 'PUT': {
      const out = await d.api.update(s, body);
      return sendJson(res, out.code, out.object, out.warnings);
    }
    case 'PATCH': {
      const ct = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      const out =
        ct === 'application/apply-patch+yaml'
          ? await d.api.apply(s, body)
          : await d.api.patch(s, body, req.headers['content-type'] ?? '');
      return sendJson(res, out.code, out.object, out.warnings);
    }
    case 'DELETE': {
      const out = await d.deleter.delete(s, body);
      return sendJson(res, out.code, out.body, out.warnings);
    }
    default:
      throw errors.methodNotAllowed();
  }
}
