import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { crtListLine, isCertificate, parseCrtList, StorageDir } from '../../lib/storage.js';
import {
  empty,
  fileUpload,
  intParam,
  json,
  jsonBody,
  requiredParam,
  type Router,
} from '../http.js';
import { reloadAfterWrite } from './reload-after-write.js';

/** Storage crt-lists (Dataplane API 3.2+): files in the SSL directory that are not certificates. */
export function crtListRoutes(router: Router, ctx: AgentContext): void {
  const store = new StorageDir(ctx.paths.sslDir);
  const base = '/v3/services/haproxy/storage/ssl_crt_lists';
  const readList = (name: string) => {
    const content = store.read(name);
    if (isCertificate(content)) throw new ApiError(404, `crt-list ${name} not found`);
    return content.toString();
  };

  router.add('GET', base, () =>
    Promise.resolve(
      json(
        200,
        store
          .names()
          .filter((n) => !isCertificate(store.read(n)))
          .map((n) => store.describe(n)),
      ),
    ),
  );
  router.add('POST', base, async (req) => {
    const { name, content } = await fileUpload(req);
    store.path(name);
    if (store.exists(name)) throw new ApiError(409, `file ${name} already exists`);
    if (isCertificate(content)) throw new ApiError(400, `${name} is a certificate, not a crt-list`);
    store.write(name, content);
    const d = store.describe(name);
    // Re-created while the running configuration still names it: HAProxy reads it on reload.
    return reloadAfterWrite(ctx, req, {
      skipped: json(201, d),
      forced: json(201, d),
      queued: (id) => json(202, d, { 'Reload-ID': id }),
    });
  });
  router.add('GET', `${base}/{name}`, (req) =>
    Promise.resolve({
      status: 200,
      body: readList(req.params.name ?? ''),
      contentType: 'application/octet-stream',
    }),
  );
  router.add('PUT', `${base}/{name}`, async (req) => {
    const name = req.params.name ?? '';
    readList(name);
    if (isCertificate(req.body))
      throw new ApiError(400, `${name}: content is a certificate, not a crt-list`);
    store.write(name, req.body);
    const d = store.describe(name);
    return reloadAfterWrite(ctx, req, {
      skipped: json(200, d),
      forced: json(200, d),
      queued: (id) => json(202, d, { 'Reload-ID': id }),
    });
  });
  router.add('DELETE', `${base}/{name}`, async (req) => {
    const name = req.params.name ?? '';
    readList(name);
    store.remove(name);
    return reloadAfterWrite(ctx, req, {
      skipped: empty(204),
      forced: empty(204),
      queued: (id) => empty(202, { 'Reload-ID': id }),
    });
  });
  crtListEntriesRoutes(router, ctx, base, store, readList);
}

/** `storage/ssl_crt_lists/{name}/entries`: add and remove crt-list lines. */
function crtListEntriesRoutes(
  router: Router,
  ctx: AgentContext,
  base: string,
  store: StorageDir,
  readList: (name: string) => string,
): void {
  router.add('GET', `${base}/{name}/entries`, (req) =>
    Promise.resolve(json(200, parseCrtList(readList(req.params.name ?? '')))),
  );
  router.add('POST', `${base}/{name}/entries`, async (req) => {
    const name = req.params.name ?? '';
    const text = readList(name);
    const body = jsonBody(req);
    if (typeof body.file !== 'string' || body.file === '' || /[\s]/.test(body.file))
      throw new ApiError(400, 'file is required');
    const entry = {
      file: body.file,
      ...(typeof body.ssl_bind_config === 'string' && body.ssl_bind_config
        ? { ssl_bind_config: body.ssl_bind_config }
        : {}),
      ...(Array.isArray(body.sni_filter) ? { sni_filter: body.sni_filter.map(String) } : {}),
    };
    if (
      /[\r\n\]]/.test(entry.ssl_bind_config ?? '') ||
      (entry.sni_filter ?? []).some((s) => /\s/.test(s))
    ) {
      throw new ApiError(400, 'invalid crt-list entry');
    }
    if (
      parseCrtList(text).some(
        (e) =>
          e.file === entry.file &&
          (e.sni_filter ?? []).join(' ') === (entry.sni_filter ?? []).join(' '),
      )
    ) {
      throw new ApiError(409, `crt-list ${name} already has an entry for ${entry.file}`);
    }
    const lines = text.replace(/\n*$/, '');
    store.write(name, `${lines === '' ? '' : `${lines}\n`}${crtListLine(entry)}\n`);
    const created = parseCrtList(readList(name)).pop();
    return reloadAfterWrite(ctx, req, {
      skipped: json(201, created),
      forced: json(201, created),
      queued: (id) => empty(202, { 'Reload-ID': id }),
    });
  });
  router.add('DELETE', `${base}/{name}/entries`, async (req) => {
    const name = req.params.name ?? '';
    const certificate = requiredParam(req, 'certificate');
    const line = intParam(req, 'line_number');
    if (line === undefined) throw new ApiError(400, 'line_number in query is required');
    const text = readList(name);
    const entry = parseCrtList(text).find((e) => e.line_number === line && e.file === certificate);
    if (!entry) throw new ApiError(404, `no entry for ${certificate} at line ${line} in ${name}`);
    const lines = text.split('\n');
    lines.splice(line - 1, 1);
    store.write(name, lines.join('\n'));
    return reloadAfterWrite(ctx, req, {
      skipped: empty(204),
      forced: empty(204),
      queued: (id) => empty(202, { 'Reload-ID': id }),
    });
  });
}
