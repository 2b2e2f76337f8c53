import { backendServers, joinAddress, parseSections, setServerLine } from '#haproxy-config';
import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { stripMeta } from '../../lib/config-file.js';
import type { Transaction } from '../../lib/transactions.js';
import {
  boolParam,
  empty,
  intParam,
  json,
  jsonBody,
  type ApiRequest,
  type ApiResponse,
  type Router,
} from '../http.js';
import { checkVersion, validateCandidate } from './configuration.routes.js';

const WORD = /^[^\s]+$/;

/** `server` view of a configuration server line (name, address, port + raw keywords). */
function serverView(s: {
  name: string;
  address: string;
  port: number | undefined;
  params: readonly string[];
}): Record<string, unknown> {
  const view: Record<string, unknown> = { name: s.name, address: s.address };
  if (s.port !== undefined) view.port = s.port;
  const w = s.params.indexOf('weight');
  if (w >= 0 && /^\d+$/.test(s.params[w + 1] ?? '')) view.weight = Number(s.params[w + 1]);
  if (s.params.includes('check')) view.check = 'enabled';
  if (s.params.includes('disabled')) view.maintenance = 'enabled';
  return view;
}

/** A server line from a `server` body (the keywords haptic renders). */
function serverLine(body: Record<string, unknown>): string {
  const { name, address } = body;
  if (
    typeof name !== 'string' ||
    !WORD.test(name) ||
    typeof address !== 'string' ||
    !WORD.test(address)
  ) {
    throw new ApiError(400, 'server name and address are required (no whitespace)');
  }
  const port = typeof body.port === 'number' ? body.port : undefined;
  const words = ['server', name, joinAddress(address, port)];
  if (typeof body.weight === 'number') words.push('weight', String(body.weight));
  if (body.check === 'enabled') words.push('check');
  if (body.maintenance === 'enabled') words.push('disabled');
  return words.join(' ');
}

/**
 * Configuration servers of a backend (`configuration/backends/{parent_name}/servers`), inside a
 * transaction (`transaction_id`) or directly (`version`), plus the backend list. Only the
 * name/address/port/weight/check/maintenance keywords are modelled.
 */
export function configServersRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/configuration/backends';
  router.add('GET', base, (req) => {
    const { text, version } = readTarget(ctx, req);
    const names = parseSections(text)
      .filter((s) => s.type === 'backend')
      .map((s) => ({ name: s.name }));
    return Promise.resolve(json(200, names, { 'Configuration-Version': String(version) }));
  });
  router.add('GET', `${base}/{parent_name}/servers`, (req) => {
    const { text, version } = readTarget(ctx, req);
    return Promise.resolve(
      json(200, servers(text, req).map(serverView), { 'Configuration-Version': String(version) }),
    );
  });
  router.add('GET', `${base}/{parent_name}/servers/{name}`, (req) => {
    const { text, version } = readTarget(ctx, req);
    return Promise.resolve(
      json(200, serverView(oneServer(text, req)), { 'Configuration-Version': String(version) }),
    );
  });
  router.add('POST', `${base}/{parent_name}/servers`, (req) =>
    write(ctx, req, 201, (text) => {
      const body = jsonBody(req);
      if (servers(text, req).some((s) => s.name === body.name)) {
        throw new ApiError(409, `object already exists: server ${String(body.name)}`);
      }
      return { text: setLine(text, req, String(body.name), serverLine(body)), result: body };
    }),
  );
  router.add('PUT', `${base}/{parent_name}/servers/{name}`, (req) =>
    write(ctx, req, 200, (text) => {
      oneServer(text, req);
      const body = { ...jsonBody(req), name: req.params.name };
      return { text: setLine(text, req, req.params.name ?? '', serverLine(body)), result: body };
    }),
  );
  router.add('DELETE', `${base}/{parent_name}/servers/{name}`, (req) =>
    write(ctx, req, 204, (text) => {
      oneServer(text, req);
      return { text: setLine(text, req, req.params.name ?? '', undefined), result: undefined };
    }),
  );
}

function servers(text: string, req: ApiRequest) {
  const list = backendServers(text, req.params.parent_name ?? '');
  if (!list) throw new ApiError(404, `backend ${req.params.parent_name ?? ''} not found`);
  return list;
}

function oneServer(text: string, req: ApiRequest) {
  const s = servers(text, req).find((x) => x.name === req.params.name);
  if (!s) throw new ApiError(404, `server ${req.params.name ?? ''} not found`);
  return s;
}

function setLine(text: string, req: ApiRequest, name: string, line: string | undefined): string {
  const next = setServerLine(text, req.params.parent_name ?? '', name, line);
  if (next === undefined)
    throw new ApiError(404, `backend ${req.params.parent_name ?? ''} not found`);
  return next;
}

function readTarget(ctx: AgentContext, req: ApiRequest): { text: string; version: number } {
  const txId = req.query.get('transaction_id');
  if (txId) {
    const t = ctx.transactions.get(txId);
    return { text: t.text, version: t._version };
  }
  return { text: stripMeta(ctx.config.content), version: ctx.config.version };
}

async function write(
  ctx: AgentContext,
  req: ApiRequest,
  status: number,
  change: (text: string) => { text: string; result: unknown },
): Promise<ApiResponse> {
  const txId = req.query.get('transaction_id');
  const version = intParam(req, 'version');
  if (txId && version !== undefined)
    throw new ApiError(400, 'both version and transaction specified, specify only one');
  if (txId) {
    if (boolParam(req, 'force_reload'))
      throw new ApiError(400, 'force_reload cannot be used with transaction_id');
    const t: Transaction = ctx.transactions.open(txId);
    const { text, result } = change(t.text);
    t.text = text;
    return result === undefined
      ? empty(status)
      : json(status, result, { 'Configuration-Version': String(t._version) });
  }
  const forceReload = boolParam(req, 'force_reload');
  let result: unknown;
  await ctx.configLock.run(() =>
    ctx.config.writeSince(async (write) => {
      checkVersion(ctx, version);
      const next = change(stripMeta(ctx.config.content));
      await validateCandidate(ctx, next.text);
      write(next.text, ctx.config.version + 1);
      result = next.result;
    }),
  );
  const headers = { 'Configuration-Version': String(ctx.config.version) };
  if (forceReload) {
    const r = await ctx.reloader.now();
    if (r.status === 'failed') throw new ApiError(400, `reload failed: ${r.response ?? ''}`);
    return result === undefined ? empty(status, headers) : json(status, result, headers);
  }
  const r = ctx.reloader.request();
  const h = { ...headers, 'Reload-ID': r.id };
  return result === undefined ? empty(202, h) : json(202, result, h);
}
