import { execFile } from 'node:child_process';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { promisify } from 'node:util';
import { heapLimitMiB } from '../../../../../apps/controller/src/cli/heap-limit.js';
import { chartSettings, type ChartSettings } from './chart.js';
import { BenchCluster } from './cluster.js';
import {
  churnScenario,
  floorScenario,
  hitlessScenario,
  latencyScenario,
  structuralSeries,
} from './cluster-scenarios.js';
import { renderMeasures, webhookMeasures } from './library-scenarios.js';
import { roundMeasure, type Measure } from './measures.js';
import { silent, type Progress } from './progress.js';
import { scaleScenario } from './scale-scenario.js';

const run = promisify(execFile);

/** The scenarios of `haptic bench`, in the order they run. */
export const SCENARIOS = [
  'latency',
  'floor',
  'churn',
  'hitless',
  'scale',
  'render',
  'webhook',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/** `tiny` is what the test runs (seconds per scenario); `small` fits in minutes; `full` is the issue's. */
export const SIZES = ['tiny', 'small', 'full'] as const;
export type SizeName = (typeof SIZES)[number];

/** The workload of each size. */
export interface SizePlan {
  /** Ingresses loaded for latency, floor, churn and hitless (one shared cluster). */
  readonly ingresses: number;
  /** Changes per kind in `latency` (and the structural series of `floor` alone). */
  readonly changes: number;
  readonly churn: number;
  /** ms between two churn writes. */
  readonly churnIntervalMs: number;
  readonly hitless: number;
  readonly scale: { readonly ingresses: number; readonly secrets: number };
  readonly render: readonly number[];
  readonly webhook: {
    readonly ingresses: number;
    readonly counts?: { runtime: number; structural: number; otherClass: number };
  };
}

export const PLANS: Readonly<Record<SizeName, SizePlan>> = {
  tiny: {
    ingresses: 20,
    changes: 3,
    churn: 10,
    churnIntervalMs: 10,
    hitless: 2,
    scale: { ingresses: 100, secrets: 10 },
    render: [50],
    webhook: { ingresses: 20, counts: { runtime: 2, structural: 1, otherClass: 2 } },
  },
  small: {
    ingresses: 200,
    changes: 10,
    churn: 100,
    churnIntervalMs: 10,
    hitless: 10,
    scale: { ingresses: 1000, secrets: 100 },
    render: [1000],
    webhook: { ingresses: 200, counts: { runtime: 10, structural: 5, otherClass: 10 } },
  },
  full: {
    ingresses: 1000,
    changes: 100,
    churn: 1000,
    churnIntervalMs: 10,
    hitless: 100,
    scale: { ingresses: 10000, secrets: 1000 },
    render: [1000, 10000],
    webhook: { ingresses: 1000 },
  },
};

export interface BenchOptions {
  /** The checkout (bin/haptic.js, the chart, the Ingress library). */
  readonly root: string;
  readonly scenarios: readonly ScenarioName[];
  readonly size: SizeName;
  /** Ingresses of the shared cluster (latency, floor, churn, hitless); default: the size's. */
  readonly ingresses?: number;
  /** Repetitions of the single timings (floor, render); default 3. */
  readonly reps?: number;
  readonly haproxyBin: string;
  /** Told when a scenario starts and ends; steps go to `progress`. */
  readonly onScenario?: (name: ScenarioName, index: number, total: number) => void;
  readonly onScenarioEnd?: (result: ScenarioResult) => void;
  readonly progress?: Progress;
}

export interface ScenarioResult {
  readonly name: ScenarioName;
  readonly seconds: number;
  readonly figures: readonly Measure[];
  /** Why the scenario stopped, when it failed (its figures are then missing). */
  readonly error?: string;
}

export interface BenchResult {
  readonly tool: 'haptic bench';
  readonly date: string;
  readonly size: SizeName;
  readonly reps: number;
  readonly plan: SizePlan;
  readonly machine: {
    readonly cores: number;
    readonly cpu: string;
    readonly memoryBytes: number;
    readonly freeMemoryBytes: number;
    readonly os: string;
    readonly node: string;
    /** 1-minute load average when the bench started and ended (other work on the machine). */
    readonly loadAverage: { readonly start: number; readonly end: number };
  };
  readonly haproxy: { readonly binary: string; readonly version: string };
  readonly chart: ChartSettings & { readonly controllerHeapLimitMiB: number };
  readonly scenarios: readonly ScenarioResult[];
  readonly seconds: number;
}

/** `haproxy -v`'s version. */
async function haproxyVersion(bin: string): Promise<string> {
  const { stdout } = await run(bin, ['-v']);
  return /version (\S+)/.exec(stdout)?.[1] ?? 'unknown';
}

const CLUSTER_SCENARIOS: readonly ScenarioName[] = ['latency', 'floor', 'churn', 'hitless'];

/**
 * Runs the chosen scenarios at a size: latency, floor, churn and hitless share one cluster (at
 * `plan.ingresses`); scale brings up its own; render and webhook run in this process.
 */
export async function runBench(o: BenchOptions): Promise<BenchResult> {
  const started = Date.now();
  const load = loadavg()[0]!;
  const plan: SizePlan = { ...PLANS[o.size], ...(o.ingresses ? { ingresses: o.ingresses } : {}) };
  const reps = o.reps ?? 3;
  const progress = o.progress ?? silent;
  const chart = chartSettings(o.root);
  const heap = heapLimitMiB(chart.controllerMemoryLimit);
  const chosen = SCENARIOS.filter((s) => o.scenarios.includes(s));
  const results: ScenarioResult[] = [];
  const clusterOpts = {
    root: o.root,
    haproxyBin: o.haproxyBin,
    chart,
    heapLimitMiB: heap,
    readyTimeoutMs: o.size === 'full' ? 20 * 60_000 : 5 * 60_000,
    log: (l: string) => progress.step(l),
  };
  let cluster: BenchCluster | undefined;
  let structural: number[] | undefined;
  const measure = async (name: ScenarioName, index: number, fn: () => Promise<Measure[]>) => {
    o.onScenario?.(name, index + 1, chosen.length);
    const t0 = Date.now();
    let result: ScenarioResult;
    try {
      result = { name, seconds: (Date.now() - t0) / 1000, figures: await fn() };
      result = { ...result, seconds: (Date.now() - t0) / 1000 };
    } catch (e) {
      result = {
        name,
        seconds: (Date.now() - t0) / 1000,
        figures: [],
        error: e instanceof Error ? e.message : String(e),
      };
    }
    results.push(result);
    o.onScenarioEnd?.(result);
  };
  const shared = async (): Promise<BenchCluster> => {
    if (cluster) return cluster;
    progress.step(`bringing up the cluster (${plan.ingresses} Ingresses)`);
    const c = await BenchCluster.start({
      ...clusterOpts,
      ingresses: plan.ingresses,
      secrets: Math.max(1, Math.ceil(plan.ingresses / 20)),
    });
    cluster = c;
    c.startController();
    progress.step('first deployment');
    await c.served(`app-${plan.ingresses - 1}.example.com`, clusterOpts.readyTimeoutMs);
    await c.endpointsServed(['10.250.0.1'], []);
    return c;
  };
  try {
    for (const [index, name] of chosen.entries()) {
      if (!CLUSTER_SCENARIOS.includes(name) && cluster) {
        await cluster.stop();
        cluster = undefined;
      }
      await measure(name, index, async () => {
        switch (name) {
          case 'latency': {
            const r = await latencyScenario(await shared(), plan.changes, progress);
            structural = r.structural;
            return r.measures;
          }
          case 'floor': {
            const c = await shared();
            structural ??= await structuralSeries(c, plan.changes, progress);
            return floorScenario(c, reps, structural, progress);
          }
          case 'churn':
            return churnScenario(await shared(), plan.churn, plan.churnIntervalMs, progress);
          case 'hitless':
            return hitlessScenario(await shared(), plan.hitless, progress);
          case 'scale':
            return scaleScenario(clusterOpts, plan.scale.ingresses, plan.scale.secrets, progress);
          case 'render':
            return renderMeasures(o.root, plan.render, reps, o.haproxyBin, progress);
          case 'webhook':
            return webhookMeasures(
              o.root,
              plan.webhook.ingresses,
              plan.webhook.counts,
              o.haproxyBin,
              progress,
            );
        }
      });
    }
  } finally {
    await cluster?.stop();
  }
  return {
    tool: 'haptic bench',
    date: new Date(started).toISOString(),
    size: o.size,
    reps,
    plan,
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      memoryBytes: totalmem(),
      freeMemoryBytes: freemem(),
      os: `${process.platform} ${release()}`,
      node: process.version,
      loadAverage: { start: load, end: loadavg()[0]! },
    },
    haproxy: { binary: o.haproxyBin, version: await haproxyVersion(o.haproxyBin) },
    chart: { ...chart, controllerHeapLimitMiB: heap },
    scenarios: results,
    seconds: (Date.now() - started) / 1000,
  };
}

/** The result with every figure rounded for people (the JSON file keeps full precision). */
export function roundedResult(r: BenchResult): BenchResult {
  return {
    ...r,
    scenarios: r.scenarios.map((s) => ({ ...s, figures: s.figures.map(roundMeasure) })),
  };
}

function human(m: Measure, v: number | undefined): string {
  if (v === undefined) return '';
  if (m.unit === 'bytes') return `${(v / 2 ** 20).toFixed(1)} MiB`;
  if (m.unit === 'ms') return `${v.toFixed(1)} ms`;
  if (m.unit === 'ratio') return v.toFixed(3);
  return String(Math.round(v));
}

/** The results as a table for a terminal: one row per figure, grouped by scenario. */
export function formatBench(r: BenchResult): string {
  const head = [
    `haptic bench --size ${r.size} (reps ${r.reps}) — ${r.date}`,
    `machine: ${r.machine.cores} cores (${r.machine.cpu}), ${(r.machine.memoryBytes / 2 ** 30).toFixed(0)} GiB, ` +
      `load ${r.machine.loadAverage.start.toFixed(1)} → ${r.machine.loadAverage.end.toFixed(1)}; node ${r.machine.node}`,
    `HAProxy ${r.haproxy.version}; agent mode, reload delay 0 ms (dataplaneapi mode's: ${r.chart.reloadDelayMs} ms); controller heap limit ${r.chart.controllerHeapLimitMiB} MiB`,
  ];
  const rows: string[][] = [['figure', 'n', 'size', 'value', 'min', 'p95', 'p99', 'max']];
  for (const s of r.scenarios) {
    rows.push([`[${s.name}] ${s.seconds.toFixed(0)} s${s.error ? ` FAILED: ${s.error}` : ''}`]);
    for (const m of s.figures)
      rows.push([
        m.name,
        String(m.n),
        String(m.size),
        human(m, m.value),
        human(m, m.min),
        human(m, m.p95),
        human(m, m.p99),
        human(m, m.max),
      ]);
  }
  const widths = rows[0]!.map((_, i) =>
    Math.max(...rows.filter((row) => row.length > 1).map((row) => (row[i] ?? '').length)),
  );
  const lines = rows.map((row) =>
    row.length === 1
      ? row[0]!
      : row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '),
  );
  return [...head, '', ...lines, '', `total ${r.seconds.toFixed(0)} s`].join('\n');
}
