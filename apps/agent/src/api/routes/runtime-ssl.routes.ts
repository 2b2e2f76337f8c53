import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import {
  deleteRuntimeCert,
  findRuntimeCert,
  runtimeCertDetails,
  runtimeCertNames,
  setRuntimeCert,
} from '../../lib/runtime-ssl.js';
import { describeCertificate, StorageDir } from '../../lib/storage.js';
import { empty, fileUpload, json, type Router } from '../http.js';

/**
 * Runtime SSL certificates (Dataplane API 3.2+ paths): new/set/commit/del ssl cert on the running
 * worker, with the PEM also written to the SSL directory so a reload keeps it.
 */
export function runtimeSslRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/runtime/ssl_certs';
  const admin = ctx.haproxy.admin;
  const store = new StorageDir(ctx.paths.sslDir);
  const locked = <T>(fn: () => Promise<T>) => ctx.haproxyLock.run(fn);
  const mustFind = async (name: string) => {
    const found = await findRuntimeCert(admin, name);
    if (!found) throw new ApiError(404, `certificate ${name} not found`);
    return found;
  };

  router.add('GET', base, () =>
    locked(async () => {
      const names = await runtimeCertNames(admin);
      const certs = [];
      for (const n of names) certs.push(await runtimeCertDetails(admin, n));
      return json(200, certs);
    }),
  );
  router.add('GET', `${base}/{name}`, (req) =>
    locked(async () =>
      json(200, await runtimeCertDetails(admin, await mustFind(req.params.name ?? ''))),
    ),
  );
  router.add('POST', base, async (req) => {
    const { name, content } = await fileUpload(req);
    describeCertificate(name, '', content);
    const path = store.path(name);
    return locked(async () => {
      if (await findRuntimeCert(admin, name))
        throw new ApiError(409, `certificate ${name} already exists`);
      await setRuntimeCert(admin, path, content.toString(), true);
      store.write(name, content);
      return empty(201);
    });
  });
  router.add('PUT', `${base}/{name}`, async (req) => {
    const { content } = await fileUpload(req);
    describeCertificate(req.params.name ?? '', '', content);
    return locked(async () => {
      const found = await mustFind(req.params.name ?? '');
      await setRuntimeCert(admin, found, content.toString());
      const base = found.split('/').pop() ?? found;
      if (store.exists(base) || found.startsWith(ctx.paths.sslDir)) store.write(base, content);
      return empty(200);
    });
  });
  router.add('DELETE', `${base}/{name}`, (req) =>
    locked(async () => {
      const found = await mustFind(req.params.name ?? '');
      await deleteRuntimeCert(admin, found);
      const b = found.split('/').pop() ?? found;
      if (store.exists(b)) store.remove(b);
      return empty(204);
    }),
  );
}
