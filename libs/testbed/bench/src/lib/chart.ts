import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** What the bench takes from the chart's defaults (helm/haptic/values.yaml), so its figures hold for an install. */
export interface ChartSettings {
  /** `haproxy.dataplane.reloadDelaySeconds`, in ms: the Dataplane API sidecar's reload delay. */
  readonly reloadDelayMs: number;
  /** `controller.resources.limits.memory`, in bytes. */
  readonly controllerMemoryLimit: number;
  /** `controller.config.reconcile` (debounce, maxDelay), as the chart writes it into the config. */
  readonly reconcile: Readonly<Record<string, string>>;
  /** `controller.config.dataplane` (minDeploymentInterval, ...), as the chart writes it. */
  readonly dataplane: Readonly<Record<string, string | number>>;
}

interface Values {
  haproxy?: { dataplane?: { reloadDelaySeconds?: unknown } };
  controller?: {
    resources?: { limits?: { memory?: unknown } };
    config?: { reconcile?: Record<string, string>; dataplane?: Record<string, string | number> };
  };
}

function bytes(text: unknown, what: string): number {
  const m = typeof text === 'string' ? /^(\d+)(Mi|Gi)$/.exec(text) : null;
  if (!m) throw new Error(`chart ${what} ${String(text)} is not NMi/NGi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 ** 3 : 1024 ** 2);
}

/** Reads the chart's defaults from `<root>/helm/haptic/values.yaml`; a missing value is an error. */
export function chartSettings(root: string): ChartSettings {
  const values = parse(readFileSync(join(root, 'helm/haptic/values.yaml'), 'utf8')) as Values;
  const delay = values.haproxy?.dataplane?.reloadDelaySeconds;
  if (typeof delay !== 'number' || !(delay >= 0))
    throw new Error('chart haproxy.dataplane.reloadDelaySeconds is not a number of seconds');
  const config = values.controller?.config ?? {};
  return {
    reloadDelayMs: delay * 1000,
    controllerMemoryLimit: bytes(values.controller?.resources?.limits?.memory, 'memory limit'),
    reconcile: config.reconcile ?? {},
    dataplane: config.dataplane ?? {},
  };
}
