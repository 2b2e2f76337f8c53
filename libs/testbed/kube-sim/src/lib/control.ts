import type { CutRule } from './client-faults.js';
import type { FailRule, Faults } from './faults.js';
import { errors } from './status.js';
import { isObject } from './types.js';

/** What the control endpoint drives (KubeSim implements it; no import back). */
export interface ControlledSim {
  readonly faults: Faults;
  readonly resourceVersion: string;
  readonly openWatches: number;
  reset(): Promise<void>;
}

/** The control endpoint (POST /kube-sim/...): faults and reset for tests in other processes. */
export class Control {
  constructor(private readonly sim: ControlledSim) {}

  async run(action: string, body: unknown): Promise<unknown> {
    const b = isObject(body) ? body : {};
    const f = this.sim.faults;
    switch (action) {
      case 'faults/close-watches':
        return { closed: f.closeWatches() };
      case 'faults/expire-next-watch':
        f.expireNextWatch(typeof b.count === 'number' ? b.count : 1);
        return { ok: true };
      case 'faults/fail': {
        if (typeof b.path !== 'string')
          throw errors.badRequest('faults/fail needs {"path": "...", "code": 500|429, "count": N}');
        const code = b.code === 429 ? 429 : b.code === 503 ? 503 : 500;
        const rule: Omit<FailRule, 'count'> & { count?: number } = {
          path: b.path,
          code,
          count: typeof b.count === 'number' ? b.count : 1,
        };
        f.failRequests({
          ...rule,
          ...(typeof b.retryAfterSeconds === 'number'
            ? { retryAfterSeconds: b.retryAfterSeconds }
            : {}),
          ...(typeof b.method === 'string' ? { method: b.method } : {}),
        });
        return { ok: true };
      }
      case 'faults/cut-off':
        return { id: f.cutOff(cutRule(b)) };
      case 'faults/restore':
        f.restore(typeof b.id === 'string' ? b.id : undefined);
        return { ok: true };
      case 'faults/latency':
        f.setLatency(typeof b.ms === 'number' ? b.ms : 0);
        return { ok: true };
      case 'faults/compact':
        f.compact();
        return { ok: true, resourceVersion: this.sim.resourceVersion };
      case 'faults/clear':
        f.clear();
        return { ok: true };
      case 'reset':
        await this.sim.reset();
        return { ok: true };
      case 'state':
        return { resourceVersion: this.sim.resourceVersion, openWatches: this.sim.openWatches };
      default:
        throw errors.notImplemented(
          `unknown kube-sim control action "${action}" (known: faults/close-watches, faults/expire-next-watch, faults/fail, faults/cut-off, faults/restore, faults/latency, faults/compact, faults/clear, reset, state)`,
        );
    }
  }
}

/** A CutRule from a control request body: {userAgent?, userAgentPattern?, token?, mode?, code?}. */
function cutRule(b: Record<string, unknown>): CutRule {
  const userAgent =
    typeof b.userAgentPattern === 'string'
      ? new RegExp(b.userAgentPattern)
      : typeof b.userAgent === 'string'
        ? b.userAgent
        : undefined;
  const token = typeof b.token === 'string' ? b.token : undefined;
  if (userAgent === undefined && token === undefined)
    throw errors.badRequest(
      'faults/cut-off needs {"userAgent": "...", "userAgentPattern": "regexp" or "token": "..."}',
    );
  const mode = b.mode === undefined ? 'fail' : b.mode;
  if (mode !== 'fail' && mode !== 'drop' && mode !== 'hang')
    throw errors.badRequest(
      `faults/cut-off: mode must be fail, drop or hang, not ${JSON.stringify(mode)}`,
    );
  const code = b.code === undefined ? 503 : b.code;
  if (code !== 500 && code !== 503 && code !== 429)
    throw errors.badRequest(
      `faults/cut-off: code must be 500, 503 or 429, not ${JSON.stringify(code)}`,
    );
  return {
    mode,
    code,
    ...(userAgent !== undefined ? { userAgent } : {}),
    ...(token !== undefined ? { token } : {}),
  };
}
