import { statSync, rmSync } from 'node:fs';
import { cliCommand } from '#haproxy-config';
import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { writeAtomic } from '../../lib/config-file.js';
import {
  checkEntry,
  findRuntimeMap,
  listRuntimeMaps,
  replaceRuntimeMap,
  resolveInDir,
  runtimeMapEntries,
  syncMapToDisk,
  type RuntimeMap,
} from '../../lib/runtime-maps.js';
import {
  boolParam,
  empty,
  json,
  jsonArrayBody,
  jsonBody,
  type ApiRequest,
  type Router,
} from '../http.js';

function mapView(ctx: AgentContext, m: RuntimeMap): Record<string, unknown> {
  const abs = resolveInDir(ctx.paths.dir, m.file);
  let size: number | undefined;
  try {
    if (abs) size = statSync(abs).size;
  } catch {
    size = undefined;
  }
  return {
    id: m.id,
    file: m.file,
    storage_name: m.file.split('/').pop() ?? m.file,
    description: m.description,
    ...(size !== undefined ? { size } : {}),
  };
}

/**
 * Runtime maps. Every change is applied to the running worker and written to the map file at
 * once (as with `force_sync=true`), so a later reload keeps it.
 */
export function runtimeMapsRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/runtime/maps';
  const locked = <T>(fn: () => Promise<T>) => ctx.haproxyLock.run(fn);

  router.add('GET', base, () =>
    locked(async () =>
      json(
        200,
        (await listRuntimeMaps(ctx.haproxy.admin)).map((m) => mapView(ctx, m)),
      ),
    ),
  );
  router.add('GET', `${base}/{name}`, (req) =>
    locked(async () =>
      json(200, mapView(ctx, await findRuntimeMap(ctx.haproxy.admin, req.params.name ?? ''))),
    ),
  );
  router.add('PUT', `${base}/{name}`, (req) => {
    boolParam(req, 'force_sync');
    const entries = jsonArrayBody(req).map((e) => {
      const o = (e ?? {}) as Record<string, unknown>;
      return checkEntry(o.key, o.value);
    });
    return locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.name ?? '');
      await replaceRuntimeMap(ctx.haproxy.admin, m.file, entries);
      await syncMapToDisk(ctx.haproxy.admin, ctx.paths.dir, m.file);
      return json(
        201,
        entries.map((e) => ({ id: e.key, key: e.key, value: e.value })),
      );
    });
  });
  router.add('DELETE', `${base}/{name}`, (req) => {
    const forceDelete = boolParam(req, 'forceDelete');
    boolParam(req, 'force_sync');
    return locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.name ?? '');
      await ctx.haproxy.admin.expect(cliCommand('clear', 'map', m.file));
      const abs = resolveInDir(ctx.paths.dir, m.file);
      if (abs && forceDelete) rmSync(abs, { force: true });
      else if (abs) writeAtomic(abs, '');
      return empty(204);
    });
  });
  mapEntriesRoutes(router, ctx, base);
}

/**
 * `runtime/maps/{parent_name}/entries[/{id}]`: one entry at a time, written to the map's file only
 * with `force_sync=true`, as the Dataplane API does (without it a reload reads the file as it
 * was: haptic's controller writes the stored copy itself, behind the runtime change).
 */
function mapEntriesRoutes(router: Router, ctx: AgentContext, base: string): void {
  const locked = <T>(fn: () => Promise<T>) => ctx.haproxyLock.run(fn);
  const entryOf = (req: ApiRequest) => req.params.id ?? '';
  router.add('GET', `${base}/{parent_name}/entries`, (req) =>
    locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.parent_name ?? '');
      const entries = await runtimeMapEntries(ctx.haproxy.admin, m.file);
      return json(
        200,
        entries.map((e) => ({ id: e.key, key: e.key, value: e.value })),
      );
    }),
  );
  router.add('POST', `${base}/{parent_name}/entries`, (req) => {
    const forceSync = boolParam(req, 'force_sync');
    const body = jsonBody(req);
    const entry = checkEntry(body.key, body.value);
    return locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.parent_name ?? '');
      const existing = await runtimeMapEntries(ctx.haproxy.admin, m.file);
      if (existing.some((e) => e.key === entry.key)) {
        throw new ApiError(409, `key ${entry.key} already exists in map ${m.file}`);
      }
      await ctx.haproxy.admin.expect(
        cliCommand('add', 'map', m.file, entry.key, ...(entry.value ? [entry.value] : [])),
      );
      if (forceSync) await syncMapToDisk(ctx.haproxy.admin, ctx.paths.dir, m.file);
      return json(201, { id: entry.key, key: entry.key, value: entry.value });
    });
  });
  router.add('GET', `${base}/{parent_name}/entries/{id}`, (req) =>
    locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.parent_name ?? '');
      const e = (await runtimeMapEntries(ctx.haproxy.admin, m.file)).find(
        (x) => x.key === entryOf(req),
      );
      if (!e) throw new ApiError(404, `key ${entryOf(req)} not found in map ${m.file}`);
      return json(200, { id: e.key, key: e.key, value: e.value });
    }),
  );
  router.add('PUT', `${base}/{parent_name}/entries/{id}`, (req) => {
    const forceSync = boolParam(req, 'force_sync');
    const entry = checkEntry(entryOf(req), jsonBody(req).value);
    if (entry.value === '') throw new ApiError(400, 'value is required');
    return locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.parent_name ?? '');
      const reply = await ctx.haproxy.admin.send(
        cliCommand('set', 'map', m.file, entry.key, entry.value),
      );
      if (/not found/i.test(reply))
        throw new ApiError(404, `key ${entry.key} not found in map ${m.file}`);
      if (reply.trim() !== '') throw new ApiError(400, reply.trim());
      if (forceSync) await syncMapToDisk(ctx.haproxy.admin, ctx.paths.dir, m.file);
      return json(200, { id: entry.key, key: entry.key, value: entry.value });
    });
  });
  router.add('DELETE', `${base}/{parent_name}/entries/{id}`, (req) => {
    const forceSync = boolParam(req, 'force_sync');
    return locked(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, req.params.parent_name ?? '');
      const reply = await ctx.haproxy.admin.send(cliCommand('del', 'map', m.file, entryOf(req)));
      if (/not found/i.test(reply))
        throw new ApiError(404, `key ${entryOf(req)} not found in map ${m.file}`);
      if (reply.trim() !== '') throw new ApiError(400, reply.trim());
      if (forceSync) await syncMapToDisk(ctx.haproxy.admin, ctx.paths.dir, m.file);
      return empty(204);
    });
  });
}
