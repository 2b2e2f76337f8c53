import { parseMapFile } from '#haproxy-config';
import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { findRuntimeMap, replaceRuntimeMap } from '../../lib/runtime-maps.js';
import { findRuntimeCert, setRuntimeCert } from '../../lib/runtime-ssl.js';
import { describeCertificate, isCertificate, StorageDir } from '../../lib/storage.js';
import { boolParam, empty, fileUpload, json, type ApiRequest, type Router } from '../http.js';
import { crtListRoutes } from './storage-crt-lists.routes.js';
import { referenced, reloadAfterWrite, sslDirLoaded } from './reload-after-write.js';

/** Storage: maps, SSL certificates, general files, crt-lists. */
export function storageRoutes(router: Router, ctx: AgentContext): void {
  mapsStorage(router, ctx);
  certsStorage(router, ctx);
  generalStorage(router, ctx);
  crtListRoutes(router, ctx);
}

async function create(
  req: ApiRequest,
  store: StorageDir,
  check?: (c: Buffer) => void,
): Promise<string> {
  const { name, content } = await fileUpload(req);
  store.path(name);
  if (store.exists(name)) throw new ApiError(409, `file ${name} already exists`);
  check?.(content);
  store.write(name, content);
  return name;
}

function mapsStorage(router: Router, ctx: AgentContext): void {
  const store = new StorageDir(ctx.paths.mapsDir);
  const base = '/v3/services/haproxy/storage/maps';
  router.add('GET', base, () =>
    Promise.resolve(
      json(
        200,
        store.names().map((n) => store.describe(n)),
      ),
    ),
  );
  router.add('POST', base, async (req) => json(201, store.describe(await create(req, store))));
  router.add('GET', `${base}/{name}`, (req) =>
    Promise.resolve({
      status: 200,
      body: store.read(req.params.name ?? ''),
      contentType: 'application/octet-stream',
    }),
  );
  router.add('PUT', `${base}/{name}`, async (req) => {
    const name = req.params.name ?? '';
    store.read(name);
    store.write(name, req.body);
    // A map the running worker has loaded is replaced at runtime: no reload needed.
    const loaded = await ctx.haproxyLock.run(async () => {
      const m = await findRuntimeMap(ctx.haproxy.admin, name).catch(() => undefined);
      if (m) await replaceRuntimeMap(ctx.haproxy.admin, m.file, parseMapFile(req.body.toString()));
      return m !== undefined;
    });
    if (loaded || !referenced(ctx, name)) return empty(204);
    return reloadAfterWrite(ctx, req, {
      skipped: empty(204),
      forced: empty(204),
      queued: (id) => empty(202, { 'Reload-ID': id }),
    });
  });
  router.add('DELETE', `${base}/{name}`, (req) => {
    store.remove(req.params.name ?? '');
    return Promise.resolve(empty(204));
  });
}

function certsStorage(router: Router, ctx: AgentContext): void {
  const store = new StorageDir(ctx.paths.sslDir);
  const base = '/v3/services/haproxy/storage/ssl_certificates';
  const view = (n: string) => describeCertificate(n, store.path(n), store.read(n));
  const checkPem = (c: Buffer) => describeCertificate('upload', '', c);
  router.add('GET', base, () =>
    Promise.resolve(
      json(
        200,
        store
          .names()
          .filter((n) => isCertificate(store.read(n)))
          .map(view),
      ),
    ),
  );
  router.add('POST', base, async (req) => {
    const name = await create(req, store, checkPem);
    // A new file is served only by a bind that loads the whole directory (after a reload).
    // (or a configuration that still names it, after a delete with skip_reload)
    if (!sslDirLoaded(ctx) && !referenced(ctx, name) && !boolParam(req, 'force_reload')) {
      return json(201, view(name));
    }
    return reloadAfterWrite(ctx, req, {
      skipped: json(201, view(name)),
      forced: json(201, view(name)),
      queued: (id) => json(202, view(name), { 'Reload-ID': id }),
    });
  });
  router.add('GET', `${base}/{name}`, (req) => {
    const name = req.params.name ?? '';
    if (!isCertificate(store.read(name))) throw new ApiError(404, `certificate ${name} not found`);
    return Promise.resolve(json(200, view(name)));
  });
  router.add('PUT', `${base}/{name}`, async (req) => {
    const name = req.params.name ?? '';
    store.read(name);
    checkPem(req.body);
    store.write(name, req.body);
    if (boolParam(req, 'skip_reload')) return json(200, view(name));
    // A certificate the worker serves is swapped at runtime (set + commit ssl cert): no reload.
    const swapped = await ctx.haproxyLock.run(async () => {
      const rt = await findRuntimeCert(ctx.haproxy.admin, store.path(name));
      const alt = rt ?? (await findRuntimeCert(ctx.haproxy.admin, `ssl/${name}`));
      if (alt) await setRuntimeCert(ctx.haproxy.admin, alt, req.body.toString());
      return alt !== undefined;
    });
    if (swapped || !referenced(ctx, name)) return json(200, view(name));
    return reloadAfterWrite(ctx, req, {
      skipped: json(200, view(name)),
      forced: json(200, view(name)),
      queued: (id) => json(202, view(name), { 'Reload-ID': id }),
    });
  });
  router.add('DELETE', `${base}/{name}`, (req) => {
    const name = req.params.name ?? '';
    store.remove(name);
    if (!referenced(ctx, name)) return Promise.resolve(empty(204));
    return reloadAfterWrite(ctx, req, {
      skipped: empty(204),
      forced: empty(204),
      queued: (id) => empty(202, { 'Reload-ID': id }),
    });
  });
}

function generalStorage(router: Router, ctx: AgentContext): void {
  const store = new StorageDir(ctx.paths.generalDir);
  const base = '/v3/services/haproxy/storage/general';
  router.add('GET', base, () =>
    Promise.resolve(
      json(
        200,
        store.names().map((n) => ({ id: n, ...store.describe(n) })),
      ),
    ),
  );
  router.add('POST', base, async (req) => {
    const name = await create(req, store);
    return json(201, { id: name, ...store.describe(name) });
  });
  router.add('GET', `${base}/{name}`, (req) =>
    Promise.resolve({
      status: 200,
      body: store.read(req.params.name ?? ''),
      contentType: 'application/octet-stream',
    }),
  );
  router.add('PUT', `${base}/{name}`, async (req) => {
    const name = req.params.name ?? '';
    store.read(name);
    const { content } = await fileUpload(req);
    store.write(name, content);
    if (!referenced(ctx, name)) return empty(204);
    return reloadAfterWrite(ctx, req, {
      skipped: empty(204),
      forced: empty(204),
      queued: (id) => empty(202, { 'Reload-ID': id }),
    });
  });
  router.add('DELETE', `${base}/{name}`, (req) => {
    store.remove(req.params.name ?? '');
    return Promise.resolve(empty(204));
  });
}
