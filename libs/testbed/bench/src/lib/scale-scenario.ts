import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { AGENT_RELOAD_DELAY_MS, BenchCluster, type ClusterOptions } from './cluster.js';
import { single, type Measure } from './measures.js';
import { poll } from './processes.js';
import type { Progress } from './progress.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS of a process in bytes (0 once it is gone). */
async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** The master and its children (workers, old workers), read from /proc. */
async function haproxyTree(master: number): Promise<number[]> {
  const children = await readFile(`/proc/${master}/task/${master}/children`, 'utf8').catch(
    () => '',
  );
  return [master, ...children.split(/\s+/).filter(Boolean).map(Number)];
}

/** The histogram's sum/count (seconds → ms) and count, from an exposition. */
function histogramMean(text: string, name: string): { ms: number; count: number } {
  let sum = 0;
  let count = 0;
  for (const m of text.matchAll(new RegExp(`^${name}_sum(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
    sum += Number(m[1]);
  for (const m of text.matchAll(new RegExp(`^${name}_count(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
    count += Number(m[1]);
  if (count === 0) throw new Error(`the controller reports no ${name}`);
  return { ms: (sum / count) * 1000, count };
}

/**
 * HAProxy's memory across one reload at this size: the resident memory of the master and its
 * workers summed, sampled every 20 ms from the reload until a second after it; a request left
 * half-sent keeps the old worker alive meanwhile, so old and new worker are counted together.
 */
async function reloadMemory(
  cluster: BenchCluster,
): Promise<{ before: number; peak: number; processes: number }> {
  const pids = await cluster.haproxyPids();
  const master = pids[0]!;
  const sum = async (ps: number[]) => (await Promise.all(ps.map(rss))).reduce((a, b) => a + b, 0);
  const before = await sum(await haproxyTree(master));
  const held = connect({ host: cluster.haproxyIp, port: cluster.ports.http });
  held.on('error', () => undefined);
  await new Promise((r) => held.once('connect', r));
  held.write('GET /api HTTP/1.1\r\nHost: app-0.example.com\r\n');
  let peak = before;
  let processes = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const tree = await haproxyTree(master);
      const total = await sum(tree);
      if (total > peak) [peak, processes] = [total, tree.length];
      await sleep(20);
    }
  })();
  try {
    await cluster.reloadNow();
    await sleep(1000);
  } finally {
    sampling = false;
    await sampler;
    held.end('\r\n');
    held.destroy();
  }
  return { before, peak, processes };
}

/**
 * `scale`: a cluster of `ingresses` Ingresses, as many Services (without selectors) and
 * EndpointSlices (written by the bench, pointing at the echo pods) and `secrets` TLS Secrets;
 * `haptic run` starts against it: the time until the last Ingress is served through HAProxy
 * (initial sync and first deployment) and until the index reports synced, the controller's
 * mean render and validation time (its own histograms), its RSS, peak RSS and V8 heap, and the
 * HAProxy pod's memory across a reload at that size.
 */
export async function scaleScenario(
  opts: Omit<ClusterOptions, 'ingresses' | 'secrets'>,
  ingresses: number,
  secrets: number,
  progress: Progress,
): Promise<Measure[]> {
  progress.step(`loading ${ingresses} Ingresses, Services, EndpointSlices, ${secrets} Secrets`);
  const cluster = await BenchCluster.start({ ...opts, ingresses, secrets });
  try {
    progress.step('initial sync and first deployment');
    const t0 = performance.now();
    cluster.startController();
    let syncedMs = Number.NaN;
    const synced = poll(
      'the index to sync',
      async () => (/^haptic_index_synced 1$/m.test(await cluster.metrics()) ? true : undefined),
      opts.readyTimeoutMs,
      100,
    ).then(() => (syncedMs = performance.now() - t0));
    await cluster.served(`app-${ingresses - 1}.example.com`, opts.readyTimeoutMs);
    const deployedMs = performance.now() - t0;
    await synced;
    const text = await cluster.metrics();
    const render = histogramMean(text, 'haptic_render_duration_seconds');
    const validation = histogramMean(text, 'haptic_validation_duration_seconds');
    const mem = await cluster.controllerMemory();
    progress.step('HAProxy memory across a reload');
    // the first deployment's reload may still be under way: let it happen first
    await sleep(AGENT_RELOAD_DELAY_MS + 1000);
    const hp = await reloadMemory(cluster);
    const n = ingresses;
    return [
      single('scale.index-synced', 'ms', syncedMs, n),
      single('scale.first-deployment', 'ms', deployedMs, n),
      single('scale.render.mean', 'ms', render.ms, n, render.count),
      single('scale.validation.mean', 'ms', validation.ms, n, validation.count),
      single('scale.controller.rss', 'bytes', mem.rss, n),
      single('scale.controller.vmhwm', 'bytes', mem.hwm, n),
      single('scale.controller.heap-used', 'bytes', mem.heapUsed, n),
      single('scale.controller.heap-limit', 'bytes', opts.heapLimitMiB * 2 ** 20, n),
      single('scale.haproxy.rss.before-reload', 'bytes', hp.before, n),
      single('scale.haproxy.rss.peak-across-reload', 'bytes', hp.peak, n),
      single('scale.haproxy.processes-at-peak', 'count', hp.processes, n),
    ];
  } finally {
    await cluster.stop();
  }
}
