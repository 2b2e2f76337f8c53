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

/** True when the configuration mentions a storage file (so changing it needs a reload). */
export function referenced(ctx: AgentContext, name: string): boolean {
  return ctx.config.content.includes(name);
}

/** True when a bind loads the whole SSL directory (`crt ssl/` or its absolute path): a new file there needs a reload. */
export function sslDirLoaded(ctx: AgentContext): boolean {
  const dir = ctx.paths.sslDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`\\bcrt\\s+(ssl|${dir})/?(\\s|$)`, 'm').test(ctx.config.content);
}
