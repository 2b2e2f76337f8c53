import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import {
  getRuntimeServer,
  persistServer,
  serverCommand,
  serverRows,
  runtimeServerView,
} from '../../lib/runtime-servers.js';
import { empty, json, jsonBody, type ApiRequest, type ApiResponse, type Router } from '../http.js';

const ADMIN = new Set(['ready', 'maint', 'drain']);
const OPERATIONAL: Readonly<Record<string, string>> = {
  up: 'up',
  down: 'down',
  stopping: 'stopping',
};

/** `runtime_add_server` keys the agent turns into `add server` keywords (others: 400). */
const FLAG_KEYS = new Set(['check', 'ssl', 'backup', 'send-proxy', 'send-proxy-v2', 'check-ssl']);
const VALUE_KEYS: Readonly<Record<string, string>> = {
  weight: 'weight',
  verify: 'verify',
  sni: 'sni',
  alpn: 'alpn',
  inter: 'inter',
  rise: 'rise',
  fall: 'fall',
  maxconn: 'maxconn',
  proto: 'proto',
  ca_file: 'ca-file',
  health_check_port: 'port',
  id: 'id',
};
const IGNORED = new Set(['name', 'address', 'port', 'maintenance']);

/**
 * Runtime servers: read, change address/port/weight/state, add and delete dynamic servers.
 * Each change is applied to the running worker (no reload) and written into haproxy.cfg
 * (same version), so a later reload keeps it.
 */
export function runtimeServersRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/runtime/backends/{parent_name}/servers';
  const admin = ctx.haproxy.admin;
  router.add('GET', base, (req) =>
    ctx.haproxyLock.run(async () =>
      json(200, (await serverRows(admin, req.params.parent_name ?? '')).map(runtimeServerView)),
    ),
  );
  router.add('GET', `${base}/{name}`, (req) =>
    ctx.haproxyLock.run(async () =>
      json(200, await getRuntimeServer(admin, req.params.parent_name ?? '', req.params.name ?? '')),
    ),
  );
  router.add('PUT', `${base}/{name}`, (req) => updateServer(ctx, req));
  router.add('POST', base, (req) => addServer(ctx, req));
  router.add('DELETE', `${base}/{name}`, (req) => deleteServer(ctx, req));
}

async function updateServer(ctx: AgentContext, req: ApiRequest): Promise<ApiResponse> {
  const backend = req.params.parent_name ?? '';
  const name = req.params.name ?? '';
  const body = jsonBody(req);
  const admin = ctx.haproxy.admin;
  const id = `${backend}/${name}`;
  if (
    body.admin_state !== undefined &&
    (typeof body.admin_state !== 'string' || !ADMIN.has(body.admin_state))
  )
    throw new ApiError(422, 'admin_state should be one of [ready maint drain]');
  if (
    body.operational_state !== undefined &&
    (typeof body.operational_state !== 'string' || !OPERATIONAL[body.operational_state])
  )
    throw new ApiError(422, 'operational_state should be one of [up down stopping]');
  return ctx.haproxyLock.run(async () => {
    const before = await getRuntimeServer(admin, backend, name);
    const address =
      typeof body.address === 'string' && body.address !== before.address
        ? body.address
        : undefined;
    const port = typeof body.port === 'number' && body.port !== before.port ? body.port : undefined;
    if (address !== undefined || port !== undefined) {
      const words = ['set', 'server', id, 'addr', address ?? String(before.address)];
      if (port !== undefined || before.port !== undefined)
        words.push('port', String(port ?? before.port));
      await serverCommand(admin, ...words);
    }
    if (typeof body.weight === 'number')
      await serverCommand(admin, 'set', 'server', id, 'weight', String(body.weight));
    if (typeof body.admin_state === 'string' && body.admin_state !== before.admin_state) {
      await serverCommand(admin, 'set', 'server', id, 'state', body.admin_state);
    }
    if (
      typeof body.operational_state === 'string' &&
      body.operational_state !== before.operational_state
    ) {
      await serverCommand(admin, 'set', 'server', id, 'health', body.operational_state);
    }
    persistServer(ctx.config, backend, name, {
      ...(address !== undefined ? { address } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(typeof body.weight === 'number' ? { weight: body.weight } : {}),
      ...(typeof body.admin_state === 'string' ? { maint: body.admin_state === 'maint' } : {}),
    });
    return json(200, await getRuntimeServer(admin, backend, name));
  });
}

/** Builds the `add server` keywords from a `runtime_add_server` body. */
export function addServerKeywords(body: Record<string, unknown>): string[] {
  const words: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined || IGNORED.has(key)) continue;
    if (FLAG_KEYS.has(key)) {
      if (value === 'enabled') words.push(key);
      else if (value !== 'disabled')
        throw new ApiError(422, `${key} should be one of [enabled disabled]`);
    } else if (VALUE_KEYS[key] && (typeof value === 'string' || typeof value === 'number')) {
      words.push(VALUE_KEYS[key], String(value));
    } else
      throw new ApiError(
        400,
        `server keyword ${key} is not supported by haptic agent for runtime add`,
      );
  }
  return words;
}

async function addServer(ctx: AgentContext, req: ApiRequest): Promise<ApiResponse> {
  const backend = req.params.parent_name ?? '';
  const body = jsonBody(req);
  const name = body.name;
  const address = body.address;
  if (typeof name !== 'string' || name === '' || typeof address !== 'string' || address === '') {
    throw new ApiError(400, 'name and address are required');
  }
  const port = typeof body.port === 'number' ? body.port : undefined;
  const keywords = addServerKeywords(body);
  const id = `${backend}/${name}`;
  const admin = ctx.haproxy.admin;
  const where = port === undefined ? address : `${address}:${port}`;
  return ctx.haproxyLock.run(async () => {
    await serverCommand(admin, 'add', 'server', id, where, ...keywords);
    if (body.maintenance !== 'enabled') await serverCommand(admin, 'enable', 'server', id);
    if (body.check === 'enabled') await serverCommand(admin, 'enable', 'health', id);
    const params = body.maintenance === 'enabled' ? [...keywords, 'disabled'] : keywords;
    persistServer(ctx.config, backend, name, {
      address,
      ...(port !== undefined ? { port } : {}),
      params,
    });
    return json(201, body);
  });
}

async function deleteServer(ctx: AgentContext, req: ApiRequest): Promise<ApiResponse> {
  const backend = req.params.parent_name ?? '';
  const name = req.params.name ?? '';
  const id = `${backend}/${name}`;
  const admin = ctx.haproxy.admin;
  return ctx.haproxyLock.run(async () => {
    await getRuntimeServer(admin, backend, name);
    await serverCommand(admin, 'set', 'server', id, 'state', 'maint');
    await serverCommand(admin, 'shutdown', 'sessions', 'server', id);
    await serverCommand(admin, 'del', 'server', id);
    persistServer(ctx.config, backend, name, { remove: true });
    return empty(204);
  });
}
