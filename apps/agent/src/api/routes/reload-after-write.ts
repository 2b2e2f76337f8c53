import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { boolParam, type ApiRequest, type ApiResponse } from '../http.js';

/** After a storage write: reload as asked (skip / force / queued). */
export async function reloadAfterWrite(
  ctx: AgentContext,
  req: ApiRequest,
  onDone: { skipped: ApiResponse; forced: ApiResponse; queued: (id: string) => ApiResponse },
): Promise<ApiResponse> {
  if (boolParam(req, 'skip_reload')) return onDone.skipped;
  if (boolParam(req, 'force_reload')) {
    const r = await ctx.reloader.now();
    if (r.status === 'failed') throw new ApiError(400, `reload failed: ${r.response ?? ''}`);
    return onDone.forced;
  }
  return onDone.queued(ctx.reloader.request().id);
}
