import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { generateCertificate } from '#testbed/kube-sim';
import { lastAppliedPerChange, stageMedians } from './change-stages.js';
import {
  AGENT_RELOAD_DELAY_MS,
  CHURN,
  churnAddresses,
  pemFingerprint,
  type BenchCluster,
  type ChangeStagesSeen,
} from './cluster.js';
import { distribution, single, type Measure } from './measures.js';
import { poll } from './processes.js';
import type { Progress } from './progress.js';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Drives the churned Service's endpoints: each step writes the next set (1..max addresses) and,
 * when asked, waits until HAProxy's servers hold exactly it.
 */
export class EndpointDriver {
  private i = 0;
  private current = churnAddresses(0);
  private readonly named = new Set(this.current);

  constructor(private readonly cluster: BenchCluster) {}

  /** Writes endpoint set `i + 1` (of at most `max` addresses). */
  async write(max: number): Promise<readonly string[]> {
    this.i++;
    this.current = churnAddresses(this.i, max);
    for (const a of this.current) this.named.add(a);
    await this.cluster.apply(this.cluster.slice(CHURN.namespace, CHURN.name, this.current));
    return this.current;
  }

  /** Until HAProxy's servers hold the last set written and none of the other addresses named. */
  converged(timeoutMs = 120_000): Promise<true> {
    const gone = [...this.named].filter((a) => !this.current.includes(a));
    return this.cluster.endpointsServed(this.current, gone, timeoutMs);
  }
}

/** What the latency scenario measures per kind of change. */
export interface LatencyResult {
  readonly measures: Measure[];
  /** Structural latencies (ms), for the floor's ratio. */
  readonly structural: number[];
}

let serial = 0;
/** A new Service, its EndpointSlice (the echo pods) and an Ingress: a new backend (a reload). */
async function structuralChange(cluster: BenchCluster): Promise<number> {
  const name = `bench-new-${++serial}`;
  const ns = 'ns-1';
  const t0 = performance.now();
  await cluster.apply([
    cluster.service(ns, name),
    cluster.slice(ns, name, cluster.echoAddresses),
    cluster.ingress(ns, name, `${name}.example.com`, name),
  ]);
  await cluster.served(`${name}.example.com`);
  return performance.now() - t0;
}

/**
 * Runs `count` changes timed by `one`, with the HAProxy reloads they caused (from `show proc`)
 * and each change's stages as the controller's /debug/changes reports them (read after each
 * change, outside its timing, as the controller keeps only the newest). A change of several
 * objects (a Service, its EndpointSlice and an Ingress) is several records: the one applied
 * last is what made the change served, so its stages stand for the change.
 */
async function series(
  cluster: BenchCluster,
  progress: Progress,
  label: string,
  count: number,
  one: (k: number) => Promise<number>,
): Promise<{ ms: number[]; reloads: number; stages: Record<string, number>[] }> {
  progress.step(label);
  const before = await cluster.reloads();
  const since = new Date().toISOString();
  const seen = new Map<string, ChangeStagesSeen>();
  const collect = async () => {
    for (const c of await cluster.changes())
      if (c.receivedAt >= since) seen.set(c.correlationId, c);
  };
  const ms: number[] = [];
  const starts: string[] = [];
  for (let k = 0; k < count; k++) {
    starts.push(new Date().toISOString());
    ms.push(await one(k));
    progress.count(k + 1, count);
    await collect();
  }
  // a reload requested by the last change may still be under way (the agent has no delay)
  await sleep(AGENT_RELOAD_DELAY_MS + 200);
  await collect();
  const applied = [...seen.values()].filter((c) => c.outcome === 'applied');
  const stages = lastAppliedPerChange(applied, starts);
  return { ms, reloads: (await cluster.reloads()) - before, stages };
}

/**
 * `latency`: `changes` changes of each kind, one at a time, each timed from the API write to the
 * first correct answer through HAProxy — a new host on an existing Service (an HTTP 200), an
 * endpoint change within the server slots (HAProxy's servers state holds exactly the new set:
 * the addresses are not dialled), a certificate rotation (the new certificate is presented for
 * the host's SNI), a new Service and backend (structural; an HTTP 200) — with the reloads counted.
 */
export async function latencyScenario(
  cluster: BenchCluster,
  changes: number,
  progress: Progress,
): Promise<LatencyResult> {
  const size = cluster.opts.ingresses;
  const out: Measure[] = [];
  const add = (
    kind: string,
    r: { ms: number[]; reloads: number; stages: Record<string, number>[] },
  ) => {
    out.push(distribution(`latency.${kind}`, 'ms', r.ms, size));
    out.push(single(`latency.${kind}.reloads`, 'count', r.reloads, size, r.ms.length));
    out.push(...stageMedians(kind, r.stages, size));
  };
  add(
    'new-host',
    await series(cluster, progress, 'new hosts on an existing Service', changes, async () => {
      const host = `bench-host-${++serial}.example.com`;
      const t0 = performance.now();
      await cluster.apply(cluster.ingress('ns-0', `bench-host-${serial}`, host, 'app-0'));
      await cluster.served(host);
      return performance.now() - t0;
    }),
  );
  const endpoints = new EndpointDriver(cluster);
  add(
    'endpoint-change',
    await series(cluster, progress, 'endpoint changes within the slots', changes, async () => {
      const t0 = performance.now();
      await endpoints.write(6);
      await endpoints.converged();
      return performance.now() - t0;
    }),
  );
  if ((cluster.world.tlsEvery ?? 0) > 0) {
    progress.step('making certificates');
    const certs: { cert: string; key: string }[] = [];
    for (let k = 0; k < changes; k++)
      certs.push(
        await generateCertificate({
          commonName: 'app-0.example.com',
          dnsNames: ['app-0.example.com'],
        }),
      );
    add(
      'certificate-rotation',
      await series(cluster, progress, 'certificate rotations', changes, async (k) => {
        const c = certs[k]!;
        const fp = pemFingerprint(c.cert);
        const t0 = performance.now();
        await cluster.apply(cluster.tlsSecret('ns-0', 'app-0-tls', c));
        await poll(
          'the rotated certificate',
          async () => ((await cluster.fingerprint('app-0.example.com')) === fp ? true : undefined),
          120_000,
        );
        return performance.now() - t0;
      }),
    );
  }
  const structural = await series(
    cluster,
    progress,
    'new Services and backends (structural)',
    changes,
    () => structuralChange(cluster),
  );
  add('structural', structural);
  return { measures: out, structural: structural.ms };
}

/** Times `fn` `reps` times (ms each). */
async function timesOf(reps: number, fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

/**
 * `floor`: `haproxy -c` on the configuration HAProxy runs now and one reload of it (through the
 * master socket, synchronous on 3.x), `reps` times each, and the ratio of the structural latency
 * (agent mode: no reload delay) to that floor; `floor.reload-delay` is what the chart's
 * dataplaneapi mode adds to every reload (its sidecar's reload_delay), and the last ratio counts it.
 */
export async function floorScenario(
  cluster: BenchCluster,
  reps: number,
  structural: readonly number[],
  progress: Progress,
): Promise<Measure[]> {
  const size = cluster.opts.ingresses;
  const cfg = join(cluster.configDir, 'haproxy.cfg');
  progress.step(`haproxy -c x${reps}`);
  const check = await timesOf(reps, () =>
    run(cluster.opts.haproxyBin, ['-c', '-q', '-f', cfg], { cwd: cluster.configDir }),
  );
  progress.step(`reload x${reps}`);
  const reload: number[] = [];
  for (let r = 0; r < reps; r++) reload.push(await cluster.reloadNow());
  const c = distribution('floor.haproxy-check', 'ms', check, size);
  const l = distribution('floor.reload', 'ms', reload, size);
  const floor = c.value + l.value;
  const delay = cluster.opts.chart.reloadDelayMs;
  const s = distribution('structural', 'ms', structural, size);
  return [
    c,
    l,
    single('floor.check-plus-reload', 'ms', floor, size, reps),
    single('floor.reload-delay', 'ms', delay, size),
    single('ratio.structural-p99-to-floor', 'ratio', s.p99! / floor, size, s.n),
    single('ratio.structural-median-to-floor', 'ratio', s.value / floor, size, s.n),
    single(
      'ratio.structural-p99-to-floor-plus-delay',
      'ratio',
      s.p99! / (floor + delay),
      size,
      s.n,
    ),
  ];
}

/** A structural series for the floor when the latency scenario did not run. */
export async function structuralSeries(
  cluster: BenchCluster,
  changes: number,
  progress: Progress,
): Promise<number[]> {
  return (
    await series(cluster, progress, 'structural changes for the floor', changes, () =>
      structuralChange(cluster),
    )
  ).ms;
}

/**
 * `churn`: `changes` endpoint changes of the churned Service, one every `intervalMs`, its endpoint
 * count cycling 1..20 (past the server slots): the reloads, runtime operations and deployments
 * they caused, and the time until HAProxy holds the last set.
 */
export async function churnScenario(
  cluster: BenchCluster,
  changes: number,
  intervalMs: number,
  progress: Progress,
): Promise<Measure[]> {
  const size = cluster.opts.ingresses;
  const endpoints = new EndpointDriver(cluster);
  const reloads = await cluster.reloads();
  const ops = await cluster.counterSum('haptic_runtime_operations_total');
  const deployments = await cluster.counterSum('haptic_deployments_total');
  progress.step(`${changes} endpoint changes, one every ${intervalMs} ms`);
  const t0 = performance.now();
  for (let k = 0; k < changes; k++) {
    await endpoints.write(20);
    progress.count(k + 1, changes);
    await sleep(intervalMs);
  }
  const written = performance.now();
  progress.step('converging');
  await endpoints.converged(600_000);
  const converged = performance.now();
  await sleep(AGENT_RELOAD_DELAY_MS + 500);
  return [
    single('churn.changes', 'count', changes, size),
    single('churn.write-duration', 'ms', written - t0, size),
    single('churn.converged-after-last-write', 'ms', converged - written, size),
    single('churn.converged-after-first-write', 'ms', converged - t0, size),
    single('churn.reloads', 'count', (await cluster.reloads()) - reloads, size, changes),
    single(
      'churn.runtime-operations',
      'count',
      (await cluster.counterSum('haptic_runtime_operations_total')) - ops,
      size,
      changes,
    ),
    single(
      'churn.deployments',
      'count',
      (await cluster.counterSum('haptic_deployments_total')) - deployments,
      size,
      changes,
    ),
  ];
}

/** One HTTPS GET with SNI and Host `host`, on a new connection: the status (0 on an error). */
function tlsGet(cluster: BenchCluster, host: string): Promise<number> {
  return new Promise((resolve) => {
    const req = httpsRequest(
      {
        host: cluster.haproxyIp,
        port: cluster.ports.https,
        path: '/api',
        servername: host,
        headers: { host },
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
    );
    req.on('error', () => resolve(0)).setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

/**
 * `hitless`: `changes` structural changes (each a reload) under a steady load of real requests
 * on three loops — keep-alive, a new connection per request, TLS (a new handshake per request) —
 * each sending one request every few ms: the requests sent and the ones that failed.
 */
export async function hitlessScenario(
  cluster: BenchCluster,
  changes: number,
  progress: Progress,
): Promise<Measure[]> {
  const size = cluster.opts.ingresses;
  const host = 'app-0.example.com';
  const loops: Record<string, () => Promise<number>> = {
    'keep-alive': () => cluster.get(host, '/api', true),
    'new-connection': () => cluster.get(host, '/api', false),
    ...((cluster.world.tlsEvery ?? 0) > 0 ? { tls: () => tlsGet(cluster, host) } : {}),
  };
  const counts = Object.fromEntries(Object.keys(loops).map((k) => [k, { sent: 0, failed: 0 }]));
  let running = true;
  const workers = Object.entries(loops).map(async ([kind, send]) => {
    while (running) {
      const status = await send();
      counts[kind]!.sent++;
      if (status !== 200) counts[kind]!.failed++;
      await sleep(5);
    }
  });
  const before = await cluster.reloads();
  try {
    progress.step(`${changes} structural changes under load`);
    for (let k = 0; k < changes; k++) {
      await structuralChange(cluster);
      progress.count(k + 1, changes);
    }
    await sleep(AGENT_RELOAD_DELAY_MS + 500);
  } finally {
    running = false;
    await Promise.all(workers);
  }
  const out: Measure[] = [
    single('hitless.structural-changes', 'count', changes, size),
    single('hitless.reloads', 'count', (await cluster.reloads()) - before, size, changes),
  ];
  for (const [kind, c] of Object.entries(counts)) {
    out.push(single(`hitless.requests.${kind}`, 'requests', c.sent, size));
    out.push(single(`hitless.failed.${kind}`, 'requests', c.failed, size, c.sent));
  }
  const all = Object.values(counts);
  out.push(
    single(
      'hitless.failed',
      'requests',
      all.reduce((s, c) => s + c.failed, 0),
      size,
      all.reduce((s, c) => s + c.sent, 0),
    ),
  );
  return out;
}
