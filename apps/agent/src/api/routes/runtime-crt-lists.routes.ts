import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import {
  addRuntimeCrtListEntry,
  deleteRuntimeCrtListEntry,
  findRuntimeCrtList,
  runtimeCrtListEntries,
  runtimeCrtLists,
} from '../../lib/runtime-crt-lists.js';
import { empty, intParam, json, jsonBody, requiredParam, type Router } from '../http.js';

/**
 * Runtime crt-lists (Dataplane API 3.2+ paths): the worker's crt-lists and their entries, changed
 * through the runtime socket only (as the real API: the stored file is not touched; write it
 * with `storage/ssl_crt_lists?skip_reload=true` so a reload keeps the change).
 */
export function runtimeCrtListRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/runtime/ssl_crt_lists';
  const admin = ctx.haproxy.admin;
  const locked = <T>(fn: () => Promise<T>) => ctx.haproxyLock.run(fn);

  router.add('GET', base, () =>
    locked(async () =>
      json(
        200,
        (await runtimeCrtLists(admin)).map((file) => ({ file })),
      ),
    ),
  );
  router.add('GET', `${base}/entries`, (req) =>
    locked(async () => {
      const list = await findRuntimeCrtList(admin, requiredParam(req, 'name'));
      return json(200, await runtimeCrtListEntries(admin, list));
    }),
  );
  router.add('POST', `${base}/entries`, (req) => {
    const body = jsonBody(req);
    if (typeof body.file !== 'string' || body.file === '' || /\s/.test(body.file))
      throw new ApiError(400, 'file is required');
    const sni = Array.isArray(body.sni_filter) ? body.sni_filter.map(String) : [];
    const opts = typeof body.ssl_bind_config === 'string' ? body.ssl_bind_config : '';
    if (/[\r\n\]]/.test(opts) || sni.some((s) => /\s/.test(s) || s === ''))
      throw new ApiError(400, 'invalid crt-list entry');
    const entry = {
      file: body.file,
      ...(opts ? { ssl_bind_config: opts } : {}),
      ...(sni.length ? { sni_filter: sni } : {}),
    };
    return locked(async () => {
      const list = await findRuntimeCrtList(admin, requiredParam(req, 'name'));
      await addRuntimeCrtListEntry(admin, list, entry);
      return empty(201);
    });
  });
  router.add('DELETE', `${base}/entries`, (req) => {
    const file = requiredParam(req, 'cert_file');
    const line = intParam(req, 'line_number');
    return locked(async () => {
      const list = await findRuntimeCrtList(admin, requiredParam(req, 'name'));
      await deleteRuntimeCrtListEntry(admin, list, file, line);
      return empty(204);
    });
  });
}
