import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CHECKED_HEADER, checkedToken } from '#haproxy-config';
import { ApiError } from '../../agent.errors.js';
import type { AgentContext } from '../../agent-context.js';
import { md5, stripMeta, withVersion } from '../../lib/config-file.js';
import { applyRuntimeActions } from '../../lib/runtime-actions.js';
import {
  boolParam,
  intParam,
  text,
  json,
  type ApiRequest,
  type ApiResponse,
  type Router,
} from '../http.js';

/** `configuration/version` and `configuration/raw`. */
export function configurationRoutes(router: Router, ctx: AgentContext): void {
  const base = '/v3/services/haproxy/configuration';
  router.add('GET', `${base}/version`, (req) => Promise.resolve(getVersion(ctx, req)));
  router.add('GET', `${base}/raw`, (req) => Promise.resolve(getRaw(ctx, req)));
  router.add('POST', `${base}/raw`, (req) => postRaw(ctx, req).catch(rawBadRequest));
}

/** Both specs document raw POST's 400 as text/plain: the error JSON is sent as text. */
function rawBadRequest(e: unknown): ApiResponse {
  if (e instanceof ApiError && e.status === 400) {
    return text(400, JSON.stringify({ code: 400, message: e.message }));
  }
  throw e;
}

function getVersion(ctx: AgentContext, req: ApiRequest): ApiResponse {
  const txId = req.query.get('transaction_id');
  const v = txId ? ctx.transactions.get(txId)._version : ctx.config.version;
  return json(200, v, { 'Configuration-Version': String(v) });
}

function getRaw(ctx: AgentContext, req: ApiRequest): ApiResponse {
  const txId = req.query.get('transaction_id');
  const version = intParam(req, 'version');
  if (txId && version !== undefined) {
    throw new ApiError(400, 'both version and transaction specified, specify only one');
  }
  if (txId) {
    const t = ctx.transactions.get(txId);
    const content = withVersion(t.text, t._version);
    return text(200, content, {
      'Configuration-Version': String(t._version),
      'Configuration-Checksum': md5(content),
    });
  }
  if (version !== undefined && version !== ctx.config.version) {
    throw new ApiError(404, `configuration version ${version} not found`);
  }
  return text(200, ctx.config.content, {
    'Configuration-Version': String(ctx.config.version),
    'Configuration-Checksum': ctx.config.checksum,
  });
}

/** Checks the optimistic lock: 409 with the real API's message on mismatch. */
export function checkVersion(ctx: AgentContext, given: number | undefined): void {
  if (given === undefined) throw new ApiError(400, 'version or transaction not specified');
  const current = ctx.config.version;
  if (given !== current) {
    throw new ApiError(
      409,
      `version mismatch: version in configuration file is ${current}, given version is ${given}`,
    );
  }
}

/** Runs `haproxy -c` on a candidate body; 400 with HAProxy's reason when invalid. */
export async function validateCandidate(ctx: AgentContext, body: string): Promise<void> {
  const file = join(ctx.paths.runDir, `candidate-${process.pid}-${Date.now()}.cfg`);
  writeFileSync(file, withVersion(body, ctx.config.version));
  try {
    const res = await ctx.haproxy.check(file);
    if (!res.ok) {
      const reason = res.output.split(file).join(ctx.paths.configFile);
      throw new ApiError(400, `invalid configuration: ${reason}`);
    }
  } finally {
    rmSync(file, { force: true });
  }
}

/** The request says the controller's `haproxy -c` passed this very body (CHECKED_HEADER). */
function isChecked(req: ApiRequest): boolean {
  const claim = req.headers[CHECKED_HEADER];
  return typeof claim === 'string' && claim === checkedToken(req.body);
}

async function postRaw(ctx: AgentContext, req: ApiRequest): Promise<ApiResponse> {
  const skipVersion = boolParam(req, 'skip_version');
  const skipReload = boolParam(req, 'skip_reload');
  const forceReload = boolParam(req, 'force_reload');
  const onlyValidate = boolParam(req, 'only_validate');
  const version = intParam(req, 'version');
  const body = stripMeta(req.body.toString());
  if (!body.includes('\n'))
    throw new ApiError(400, 'invalid configuration: no newline character found');
  if (onlyValidate) {
    await validateCandidate(ctx, body);
    return text(202, body, { 'Configuration-Version': String(ctx.config.version) });
  }
  const actions = req.headers['x-runtime-actions'];
  // a copy stored without a reload that the controller's own haproxy -c passed (these bytes
  // exactly) is not checked twice; anything that reloads now is checked here
  const checked = skipReload && isChecked(req);
  await ctx.configLock.run(() =>
    // runtime server changes made during the check are kept over the new body
    ctx.config.writeSince(async (write) => {
      if (!skipVersion) checkVersion(ctx, version);
      if (!checked) await validateCandidate(ctx, body);
      write(body, ctx.config.version + 1);
    }),
  );
  if (skipReload && typeof actions === 'string' && actions.trim() !== '') {
    await ctx.haproxyLock.run(() => applyRuntimeActions(ctx.haproxy.admin, actions));
  }
  const headers = {
    'Configuration-Version': String(ctx.config.version),
    'Configuration-Checksum': ctx.config.checksum,
  };
  if (skipReload) return text(201, ctx.config.content, headers);
  if (forceReload) {
    const r = await ctx.reloader.now();
    if (r.status === 'failed') throw new ApiError(400, `reload failed: ${r.response ?? ''}`);
    // done by now; its id names it in the reload history (the Dataplane API sends none here)
    return text(201, ctx.config.content, { ...headers, 'Reload-ID': r.id });
  }
  const r = ctx.reloader.request();
  return text(202, ctx.config.content, { ...headers, 'Reload-ID': r.id });
}
