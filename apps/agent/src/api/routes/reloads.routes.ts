import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { json, type Router } from '../http.js';

/** `reloads` and `reloads/{id}`. */
export function reloadsRoutes(router: Router, ctx: AgentContext): void {
  router.add('GET', '/v3/services/haproxy/reloads', () =>
    Promise.resolve(json(200, ctx.reloader.list())),
  );
  router.add('GET', '/v3/services/haproxy/reloads/{id}', (req) => {
    const id = req.params.id ?? '';
    if (!/^\d{4}-\d{2}-\d{2}-\d+$/.test(id)) {
      throw new ApiError(422, `id in path should match '^\\d{4}-\\d{2}-\\d{2}-\\d+$'`);
    }
    const r = ctx.reloader.get(id);
    if (!r) throw new ApiError(404, `reload with ID ${id} does not exist`);
    return Promise.resolve(json(200, r));
  });
}
