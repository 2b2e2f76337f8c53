import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { describeCertificate, isCertificate, StorageDir } from '../../lib/storage.js';
import { empty, fileUpload, json, type ApiRequest, type Router } from '../http.js';
import { crtListRoutes } from './storage-crt-lists.routes.js';
import { reloadAfterWrite } from './reload-after-write.js';

/** Storage: maps, SSL certificates, general files, crt-lists. */
export function storageRoutes(router: Router, ctx: AgentContext): void {
  mapsStorage(router, ctx);
  certsStorage(router, ctx);
  generalStorage(router, ctx);
  if (ctx.apiVersion !== '3.0') crtListRoutes(router, ctx);
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
  router.add('PUT', `${base}/{name}`, (req) => {
    const name = req.params.name ?? '';
    store.read(name);
    store.write(name, req.body);
    // As the real API: a storage write reloads unless `skip_reload` (the runtime endpoints do not).
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
  router.add('PUT', `${base}/{name}`, (req) => {
    const name = req.params.name ?? '';
    store.read(name);
    checkPem(req.body);
    store.write(name, req.body);
    return reloadAfterWrite(ctx, req, {
      skipped: json(200, view(name)),
      forced: json(200, view(name)),
      queued: (id) => json(202, view(name), { 'Reload-ID': id }),
    });
  });
  router.add('DELETE', `${base}/{name}`, (req) => {
    const name = req.params.name ?? '';
    store.remove(name);
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
