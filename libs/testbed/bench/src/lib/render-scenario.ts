import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { TemplateConfig } from '#core';
import { ResourceIndex, type IndexSnapshot, type KubeObject } from '#index';
import { RenderService, type RenderedOutputs, type RenderResult } from '#render';
import { HaproxyChecker, formatProblem, validateOutputs } from '#validation';
import { median, type Figure } from './figures.js';
import { ingressAt, ingressWorld, type TlsPair, type WorldOptions } from './manifests.js';

/** What the render scenario needs. */
export interface RenderScenarioOptions {
  /** The template config to render (the default Ingress library: `loadIngressLibrary`). */
  readonly config: TemplateConfig;
  /** Cluster sizes, in Ingresses (e.g. 1,000 and 10,000). */
  readonly sizes: readonly number[];
  /** Timed repetitions per figure (the median is reported); default 3. */
  readonly repetitions?: number;
  /** The HAProxy binary for `haproxy -c`; without one the check figures are left out. */
  readonly haproxyBin?: string;
  /** A certificate for every `tlsEvery`-th Ingress's TLS Secret (default every 20th). */
  readonly tls?: TlsPair;
  readonly tlsEvery?: number;
  /** Called with progress lines (what is being measured). */
  readonly log?: (line: string) => void;
}

function indexOf(config: TemplateConfig, world: Record<string, readonly object[]>): ResourceIndex {
  const index = new ResourceIndex();
  const watched = config.spec.watchedResources;
  index.configure(
    Object.fromEntries(
      Object.entries(watched).map(([n, w]) => [n, { indexBy: w.indexBy, store: 'full' as const }]),
    ),
  );
  for (const name of Object.keys(watched)) {
    index.reset(name, undefined, (world[name] ?? []) as KubeObject[]);
    index.listed(name);
  }
  return index;
}

function rendered(result: RenderResult, what: string): RenderedOutputs {
  if (!result.ok)
    throw new Error(`${what} failed: ${result.problems.map((p) => p.message).join('; ')}`);
  if (result.quarantined.length > 0) throw new Error(`${what} quarantined objects`);
  return result.outputs;
}

/** Wall-clock ms of `fn`, and the CPU ms this process spent on it (less sensitive to load). */
async function timed<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const value = await fn();
  const used = process.cpuUsage(cpu);
  return [value, performance.now() - started, (used.user + used.system) / 1000];
}

function serviceFor(config: TemplateConfig): RenderService {
  const service = new RenderService();
  const compiled = service.compile(config);
  if (!compiled.ok) throw new Error(`templates do not compile: ${compiled.error[0]?.message}`);
  return service;
}

/**
 * Full renders, each by a freshly compiled renderer (nothing carried over), steady-state inputs.
 * Timed renders give way to the event loop as the controller's do (`renderYielding`).
 */
async function fullRenders(config: TemplateConfig, snapshot: IndexSnapshot, reps: number) {
  const first = rendered(serviceFor(config).render(snapshot), 'first render');
  const previous = { haproxyConfig: first.haproxyConfig, maps: first.maps };
  const samples: number[] = [];
  const cpus: number[] = [];
  let outputs = first;
  // How long the event loop waited at most during a render (what a lease renewal would wait).
  const blocked = monitorEventLoopDelay({ resolution: 5 });
  const blocks: number[] = [];
  for (let r = 0; r < reps; r++) {
    const service = serviceFor(config);
    blocked.reset();
    blocked.enable();
    const [result, ms, cpu] = await timed(() => service.renderYielding(snapshot, { previous }));
    blocked.disable();
    blocks.push(blocked.max / 1e6);
    outputs = rendered(result, 'full render');
    samples.push(ms);
    cpus.push(cpu);
  }
  return {
    outputs,
    previous,
    ms: median(samples),
    cpu: median(cpus),
    longestBlock: median(blocks),
  };
}

/**
 * Untimed one-Ingress changes (each changed and put back) before the timed ones, so the timed
 * changes run the change path compiled and with the heap at its steady state, as in a controller
 * that has been serving for a while — as the timed full renders follow an untimed first render.
 * Without them the first two or three changes after the full renders take 2–3 times as long
 * (the change path's first calls, and the collection of the full renders' garbage).
 */
const WARM_UP_CHANGES = 3;

/**
 * One Ingress (in the middle) changes its first path; the same renderer (and its fragment
 * cache, warm from a steady-state render) renders again. Other Ingresses (its neighbours)
 * change first, untimed (`WARM_UP_CHANGES`).
 */
async function changeRenders(
  config: TemplateConfig,
  index: ResourceIndex,
  world: WorldOptions,
  reps: number,
): Promise<{ ms: number; cpu: number }> {
  const service = serviceFor(config);
  const snapshot = await index.snapshot();
  const first = rendered(service.render(snapshot), 'first render');
  const previous = { haproxyConfig: first.haproxyConfig, maps: first.maps };
  // Steady state, as the controller runs: the last render is what is deployed (and rendered).
  rendered(service.render(snapshot, { previous }), 'steady-state render');
  const target = Math.floor(world.ingresses / 2);
  for (let w = 1; w <= Math.min(WARM_UP_CHANGES, target); w++) {
    for (const variant of [1, 0]) {
      index.upsert('ingresses', ingressAt(target - w, world, variant) as KubeObject);
      rendered(
        await service.renderYielding(await index.snapshot(), { previous }),
        'warm-up change',
      );
    }
  }
  const samples: number[] = [];
  const cpus: number[] = [];
  for (let r = 0; r < reps; r++) {
    index.upsert('ingresses', ingressAt(target, world, r + 1) as KubeObject);
    const snapshot = await index.snapshot();
    const [result, ms, cpu] = await timed(() => service.renderYielding(snapshot, { previous }));
    rendered(result, 'one-Ingress change');
    samples.push(ms);
    cpus.push(cpu);
  }
  index.upsert('ingresses', ingressAt(target, world) as KubeObject);
  return { ms: median(samples), cpu: median(cpus) };
}

async function checkTimes(
  config: TemplateConfig,
  outputs: RenderedOutputs,
  binary: string,
  reps: number,
): Promise<number> {
  const checker = new HaproxyChecker({ binary, timeoutMs: 300_000 }, 1);
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) {
    const result = await validateOutputs(outputs, { dirs: config.spec.dataplane, checker });
    if (!result.valid) {
      const why = result.problems.slice(0, 3).map(formatProblem).join('; ');
      throw new Error(`haproxy -c refused the rendered output: ${why}`);
    }
    samples.push(result.haproxy.durationMs ?? NaN);
  }
  return median(samples);
}

/**
 * The render scenario: for each size, a generated cluster rendered by the given config — full
 * render, one-Ingress change, and `haproxy -c` on the same output — as figures (medians of
 * `repetitions` runs) with the ratios full/check and change/full.
 */
export async function renderScenario(opts: RenderScenarioOptions): Promise<Figure[]> {
  const reps = opts.repetitions ?? 3;
  const log = opts.log ?? (() => undefined);
  const figures: Figure[] = [];
  for (const n of opts.sizes) {
    const world: WorldOptions = {
      ingresses: n,
      tlsEvery: opts.tlsEvery ?? 20,
      ...(opts.tls ? { tls: opts.tls } : {}),
    };
    const objects = ingressWorld(world);
    const index = indexOf(opts.config, { ...objects });
    const snapshot = await index.snapshot();
    log(`n=${n}: full render x${reps}`);
    const full = await fullRenders(opts.config, snapshot, reps);
    const add = (name: string, value: number, unit: Figure['unit']): void =>
      void figures.push({ name, value, unit, n });
    add('render.full', full.ms, 'ms');
    add('render.full.cpu', full.cpu, 'ms');
    add('render.full.longest-event-loop-block', full.longestBlock, 'ms');
    log(`n=${n}: one-Ingress change x${reps}`);
    const change = await changeRenders(opts.config, index, world, reps);
    add('render.one-ingress-change', change.ms, 'ms');
    add('render.one-ingress-change.cpu', change.cpu, 'ms');
    add('ratio.change-to-full', change.ms / full.ms, 'ratio');
    add('output.haproxy-cfg', Buffer.byteLength(full.outputs.haproxyConfig), 'bytes');
    if (opts.haproxyBin) {
      log(`n=${n}: haproxy -c x${reps}`);
      const check = await checkTimes(opts.config, full.outputs, opts.haproxyBin, reps);
      add('haproxy.check', check, 'ms');
      add('ratio.full-to-check', full.ms / check, 'ratio');
    }
  }
  return figures;
}
