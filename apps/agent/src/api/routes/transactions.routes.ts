import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { stripMeta } from '../../lib/config-file.js';
import { transactionView } from '../../lib/transactions.js';
import {
  boolParam,
  empty,
  intParam,
  json,
  type ApiRequest,
  type ApiResponse,
  type Router,
} from '../http.js';
import { validateCandidate } from './configuration.routes.js';

/** Transactions: create, list, get, commit, delete. */
export function transactionsRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/transactions';
  router.add('GET', base, (req) => {
    const status = req.query.get('status') ?? undefined;
    return Promise.resolve(json(200, ctx.transactions.list(status).map(transactionView)));
  });
  router.add('POST', base, (req) => {
    const version = intParam(req, 'version');
    if (version === undefined) throw new ApiError(400, 'version in query is required');
    if (version !== ctx.config.version) {
      throw new ApiError(
        409,
        `version mismatch: version in configuration file is ${ctx.config.version}, given version is ${version}`,
      );
    }
    const t = ctx.transactions.create(version, stripMeta(ctx.config.content));
    return Promise.resolve(
      json(201, transactionView(t), { 'Configuration-Version': String(version) }),
    );
  });
  router.add('GET', `${base}/{id}`, (req) => {
    const t = ctx.transactions.get(req.params.id ?? '');
    return Promise.resolve(
      json(200, transactionView(t), { 'Configuration-Version': String(t._version) }),
    );
  });
  router.add('DELETE', `${base}/{id}`, (req) => {
    ctx.transactions.delete(req.params.id ?? '');
    return Promise.resolve(empty(204));
  });
  router.add('PUT', `${base}/{id}`, (req) => commit(ctx, req));
}

async function commit(ctx: AgentContext, req: ApiRequest): Promise<ApiResponse> {
  const forceReload = boolParam(req, 'force_reload');
  const t = ctx.transactions.get(req.params.id ?? '');
  if (t.status === 'failed')
    throw new ApiError(406, `transaction ${t.id} failed and cannot be committed`);
  if (t.status !== 'in_progress') throw new ApiError(400, `transaction ${t.id} is ${t.status}`);
  await ctx.configLock.run(() =>
    ctx.config.writeSince(async (write) => {
      if (t._version !== ctx.config.version) {
        t.status = 'outdated';
        throw new ApiError(
          409,
          `version mismatch, transaction version: ${t._version}, configured version: ${ctx.config.version}`,
        );
      }
      try {
        await validateCandidate(ctx, t.text);
      } catch (e) {
        t.status = 'failed';
        throw e;
      }
      write(t.text, ctx.config.version + 1);
      t.status = 'success';
    }),
  );
  const headers = { 'Configuration-Version': String(ctx.config.version) };
  if (forceReload) {
    const r = await ctx.reloader.now();
    if (r.status === 'failed') throw new ApiError(400, `reload failed: ${r.response ?? ''}`);
    return json(200, transactionView(t), headers);
  }
  const r = ctx.reloader.request();
  return json(202, transactionView(t), { ...headers, 'Reload-ID': r.id });
}
