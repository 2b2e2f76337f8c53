import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { isHapticError } from '#core';
import { CliArgumentError, RuntimeCommandError, RuntimeSocketError } from '#haproxy-config';
import { ApiError } from '../agent.errors.js';
import type { AgentContext } from '../agent-context.js';
import type { Credentials } from '../lib/credentials.js';
import type { RequestLog } from '../lib/request-log.js';
import { json, Router, type ApiResponse } from './http.js';
import { configurationRoutes } from './routes/configuration.routes.js';
import { infoRoutes } from './routes/info.routes.js';
import { reloadsRoutes } from './routes/reloads.routes.js';
import { runtimeMapsRoutes } from './routes/runtime-maps.routes.js';
import { runtimeServersRoutes } from './routes/runtime-servers.routes.js';
import { runtimeSslRoutes } from './routes/runtime-ssl.routes.js';
import { runtimeCrtListRoutes } from './routes/runtime-crt-lists.routes.js';
import { storageRoutes } from './routes/storage.routes.js';
import { transactionsRoutes } from './routes/transactions.routes.js';
import { configServersRoutes } from './routes/config-servers.routes.js';

const MAX_BODY = 64 << 20;

/** Builds the router with every implemented Dataplane API path. */
export function buildRouter(ctx: AgentContext, log: RequestLog): Router {
  const router = new Router();
  infoRoutes(router, ctx);
  configurationRoutes(router, ctx);
  configServersRoutes(router, ctx);
  transactionsRoutes(router, ctx);
  reloadsRoutes(router, ctx);
  storageRoutes(router, ctx);
  runtimeServersRoutes(router, ctx);
  runtimeMapsRoutes(router, ctx);
  if (ctx.apiVersion !== '3.0') {
    // 3.2+ paths
    runtimeSslRoutes(router, ctx);
    runtimeCrtListRoutes(router, ctx);
  }
  // haptic's own request log, outside /v3 so it cannot shadow an API path.
  router.add('GET', '/haptic/requests', () => Promise.resolve(json(200, log.list())));
  return router;
}

/** Maps an error to the Dataplane API's `{"code","message"}` answer. */
export function errorResponse(e: unknown): ApiResponse {
  if (e instanceof ApiError) return json(e.status, { code: e.status, message: e.message });
  if (e instanceof CliArgumentError) return json(400, { code: 400, message: e.message });
  if (e instanceof RuntimeCommandError) return json(400, { code: 400, message: e.message });
  if (e instanceof RuntimeSocketError) return json(500, { code: 500, message: e.message });
  const message = isHapticError(e) || e instanceof Error ? e.message : String(e);
  return json(500, { code: 500, message });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, `request body larger than ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The agent's HTTP server: Basic auth on everything, routing, error mapping, request log. */
export function createApiServer(
  ctx: AgentContext,
  credentials: Credentials,
  log: RequestLog,
  tls?: { cert: Buffer; key: Buffer },
): { server: Server; router: Router } {
  const router = buildRouter(ctx, log);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    void handle(ctx, router, credentials, log, req, res);
  };
  // HTTPS as the real API serves it with its TLS flags (certificate + key, PEM).
  const server: Server = tls ? createHttpsServer(tls, onRequest) : createServer(onRequest);
  // Idle keep-alive connections outlive any client's idle timeout, so a client never reuses a
  // socket the agent is closing at that instant (ECONNRESET under load).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return { server, router };
}

async function handle(
  ctx: AgentContext,
  router: Router,
  credentials: Credentials,
  log: RequestLog,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const started = Date.now();
  const url = new URL(req.url ?? '/', 'http://agent');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const user = credentials.verify(req.headers.authorization);
  let response: ApiResponse;
  if (user === undefined) {
    response = json(
      401,
      { code: 401, message: 'unauthenticated for invalid credentials' },
      {
        'WWW-Authenticate': 'Basic realm="HAProxy Data Plane API"',
      },
    );
  } else {
    try {
      const body = await readBody(req);
      const { handler, params } = router.resolve(method, path);
      response = await handler({
        method,
        path,
        query: url.searchParams,
        params,
        headers: req.headers,
        body,
      });
    } catch (e) {
      response = errorResponse(e);
    }
  }
  const headers: Record<string, string> = { ...(response.headers ?? {}) };
  if (!('Configuration-Version' in headers) && path.startsWith('/v3/services/')) {
    headers['Configuration-Version'] = String(ctx.config.version);
  }
  if (response.contentType) headers['Content-Type'] = response.contentType;
  res.writeHead(response.status, headers);
  res.end(response.body);
  log.add({
    time: new Date(started).toISOString(),
    method,
    path: url.pathname + url.search,
    status: response.status,
    durationMs: Date.now() - started,
    user,
    client: headerValue(req.headers['x-haptic-client']) ?? req.headers['user-agent'],
    reloadId: headers['Reload-ID'],
    configurationVersion: headers['Configuration-Version'],
  });
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}
