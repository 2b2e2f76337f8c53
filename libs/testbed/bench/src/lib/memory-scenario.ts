import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '#testbed/kube-sim';
import { Stack, waitFor } from '#testbed/stack';
import { MALLOC_ENV, heapNodeFlags } from '../../../../../apps/controller/src/cli/heap-limit.js';
import type { Figure } from './figures.js';
import { ingressAt, ingressWorld, type TlsPair, type WorldOptions } from './manifests.js';
import {
  checkPeaks,
  metricValue,
  processMemory,
  writeCheckWrapper,
  type ProcessMemory,
} from './memory-probe.js';

export interface MemoryScenarioOptions {
  /** Ingresses (one host, one path), with as many Services and EndpointSlices. */
  readonly ingresses: number;
  /** TLS Secrets (each referenced by one Ingress); default one per 10 Ingresses, at most 1,000. */
  readonly secrets?: number;
  /** Certificate of the TLS Secrets (none are made without it). */
  readonly tls?: TlsPair;
  /** HAProxy binary of the agent and of the controller's `haproxy -c`. */
  readonly haproxyBin: string;
  /**
   * The controller's V8 heap limit (`--max-old-space-size`, MiB), as the chart derives it; the
   * controller gets the node flags bin/haptic.js derives from it (`heapNodeFlags`).
   */
  readonly heapLimitMiB: number;
  /** Ingress changes after the first deployment, each awaited until deployed (default 5). */
  readonly changes?: number;
  /** Extra node flags for the controller (e.g. `--heapsnapshot-signal=SIGUSR2`). */
  readonly nodeFlags?: readonly string[];
  /** Writes CPU profiles of the controller into this folder, one a minute and one when it stops. */
  readonly cpuProfDir?: string;
  /**
   * spec.controller.leaderElection (durations as text). At 10,000 Ingresses a render blocks the
   * event loop longer than the default renewDeadline (10 s), so the lease is lost during every
   * render; a longer lease lets the memory be measured until that is fixed.
   */
  readonly leaderElection?: Readonly<Record<string, string>>;
  /** Stops the stack (every process it started) when aborted, e.g. on SIGINT. */
  readonly signal?: AbortSignal;
  /** How long the first deployment may take (default 15 min). */
  readonly timeoutMs?: number;
  /** Called with the running stack and the controller's pid before it is stopped. */
  readonly inspect?: (stack: Stack, pid: number) => Promise<void>;
  readonly log?: (line: string) => void;
}

interface PodView {
  metadata: { name: string; uid: string };
  status?: { podIP?: string; containerStatuses?: { name: string; containerID?: string }[] };
}

const NAMESPACES = 50;
/** The in-process CPU profiler (NODE_OPTIONS refuses --cpu-prof); the built copy beside this one. */
const CPU_PROFILE_PRELOAD = fileURLToPath(new URL('../preload/cpu-profile.js', import.meta.url));
const MIB = 1024 * 1024;

function namespaces(): KubeObject[] {
  return Array.from({ length: NAMESPACES }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: `ns-${i}` },
  }));
}

async function pod(stack: Stack, component: string): Promise<PodView> {
  const sel = encodeURIComponent(`app.kubernetes.io/component=${component}`);
  const list = await stack.get<{ items: PodView[] }>(
    `/api/v1/namespaces/${stack.topology.namespace}/pods?labelSelector=${sel}`,
  );
  const found = list?.items[0];
  if (!found) throw new Error(`no ${component} pod`);
  return found;
}

/** The pid node-sim runs a pod's first container as (`containerID: node-sim://<pid>`). */
function containerPid(p: PodView): number {
  const id = p.status?.containerStatuses?.[0]?.containerID ?? '';
  const m = /^node-sim:\/\/(\d+)$/.exec(id);
  if (!m) throw new Error(`pod ${p.metadata.name} has no running container (${id || 'none'})`);
  return Number(m[1]);
}

/** Every haproxy.cfg and map file HAProxy's pod folder holds (or only haproxy.cfg), concatenated. */
async function deployedText(podDir: string, configOnly = false): Promise<string> {
  const entries = await readdir(podDir, { recursive: true, withFileTypes: true });
  const files = entries.filter(
    (e) => e.isFile() && (e.name === 'haproxy.cfg' || (!configOnly && e.name.endsWith('.map'))),
  );
  const texts = await Promise.all(
    files.map((e) => readFile(join(e.parentPath, e.name), 'utf8').catch(() => '')),
  );
  return texts.join('\n');
}

/**
 * `haptic run` (default Ingress library, the chart's heap limit) against kube-sim holding the
 * generated cluster, deploying to one HAProxy pod (agent + real HAProxy): the controller's
 * resident memory and V8 heap after the first deployment and after a few changes, and the peak
 * resident size of its `haproxy -c` runs, as figures.
 */
export async function memoryScenario(opts: MemoryScenarioOptions): Promise<Figure[]> {
  const n = opts.ingresses;
  const log = opts.log ?? (() => undefined);
  const secrets = opts.tls ? (opts.secrets ?? Math.min(1000, Math.ceil(n / 10))) : 0;
  const world: WorldOptions = {
    ingresses: n,
    namespaces: NAMESPACES,
    paths: 1,
    ...(opts.tls && secrets > 0 ? { tls: opts.tls, tlsEvery: Math.ceil(n / secrets) } : {}),
  };
  const w = ingressWorld(world);
  const objects = [
    ...namespaces(),
    ...w.services,
    ...w.endpointslices,
    ...w.secrets,
    ...w.ingresses,
  ] as KubeObject[];
  const dir = await mkdtemp(join(tmpdir(), 'haptic-bench-memory-'));
  const { wrapper, log: peaksLog } = await writeCheckWrapper(dir, opts.haproxyBin);
  const timeoutMs = opts.timeoutMs ?? 15 * 60_000;
  log(`n=${n}: ${objects.length} objects, ${w.secrets.length} TLS Secrets; starting the stack`);
  const stack = await Stack.start({
    haproxyReplicas: 1,
    fast: true,
    objects,
    readyTimeoutMs: timeoutMs,
    ...(opts.leaderElection ? { leaderElection: opts.leaderElection } : {}),
    controllerEnv: {
      // What bin/haptic.js gives the controller under a memory limit (it is not re-executed
      // here: the heap limit comes as NODE_OPTIONS); a value this process has set wins.
      ...Object.fromEntries(
        Object.entries(MALLOC_ENV).map(([name, value]) => [name, process.env[name] ?? value]),
      ),
      NODE_OPTIONS: [
        ...heapNodeFlags(opts.heapLimitMiB),
        ...(opts.cpuProfDir ? [`--import=${CPU_PROFILE_PRELOAD}`] : []),
        ...(opts.nodeFlags ?? []),
      ].join(' '),
      HAPTIC_HAPROXY_BIN: wrapper,
      ...(opts.cpuProfDir ? { HAPTIC_CPU_PROFILE_DIR: opts.cpuProfDir } : {}),
    },
    log: (l) => log(l),
  });
  let stopping: Promise<void> | undefined;
  const stopStack = (): Promise<void> => (stopping ??= stack.stop());
  const onAbort = (): void => void stopStack();
  opts.signal?.addEventListener('abort', onAbort);
  try {
    const controller = await pod(stack, 'controller');
    const pid = containerPid(controller);
    const metricsUrl = `http://${controller.status?.podIP}:${stack.topology.metricsPort}/metrics`;
    const haproxyPod = await pod(stack, 'loadbalancer');
    const podDir = join(stack.dir, 'pods', haproxyPod.metadata.uid.slice(0, 8));
    const deployed = (needle: string, what: string, configOnly = false): Promise<true> =>
      waitFor(
        what,
        async () => ((await deployedText(podDir, configOnly)).includes(needle) ? true : undefined),
        timeoutMs,
        500,
      );
    const sample = async (): Promise<ProcessMemory & { heapUsed: number }> => {
      const mem = await processMemory(pid);
      const text = await (await fetch(metricsUrl)).text();
      const heapUsed = metricValue(text, 'nodejs_heap_size_used_bytes');
      if (heapUsed === undefined)
        throw new Error('controller metrics lack nodejs_heap_size_used_bytes');
      return { ...mem, heapUsed };
    };

    const started = Date.now();
    // The maps are written to storage before the configuration is pushed: the first deployment is
    // done once haproxy.cfg names the last Ingress's backend (its Service, app-<n-1>).
    await deployed(`_app-${n - 1}_`, `the first deployment of ${n} Ingresses`, true);
    await deployed(`app-${n - 1}.example.com`, `the host map of the first deployment`);
    log(`n=${n}: first deployment after ${Date.now() - started} ms (controller pid ${pid})`);
    const first = await sample();
    const changes = opts.changes ?? 5;
    for (let k = 1; k <= changes; k++) {
      const i = Math.floor((k * n) / (changes + 1));
      await stack.apply(ingressAt(i, world, k) as KubeObject);
      await deployed(`/api-v${k}`, `change ${k} (Ingress app-${i}) to be deployed`);
    }
    const after = await sample();
    await opts.inspect?.(stack, pid);
    // A render's whole `haproxy -c` runs beside its deployment, so the last change's check may
    // still run once the change is deployed: wait (30 s at most) until one check per deployment
    // has finished, then take what there is.
    const settled = Date.now() + 30_000;
    let peaks = await checkPeaks(peaksLog);
    while (peaks.length < changes + 1 && Date.now() < settled) {
      await new Promise((r) => setTimeout(r, 250));
      peaks = await checkPeaks(peaksLog);
    }
    if (peaks.length === 0) throw new Error('no haproxy -c ran (is GNU time at /usr/bin/time?)');
    const checkPeak = Math.max(...peaks);
    log(
      `n=${n}: rss ${(after.rss / MIB).toFixed(1)} MiB, hwm ${(after.hwm / MIB).toFixed(1)} MiB, ` +
        `haproxy -c peak ${(checkPeak / MIB).toFixed(1)} MiB over ${peaks.length} checks`,
    );
    const fig = (name: string, value: number, unit: Figure['unit'] = 'bytes'): Figure => ({
      name,
      value,
      unit,
      n,
    });
    return [
      fig('controller.rss.first-deployment', first.rss),
      fig('controller.heap-used.first-deployment', first.heapUsed),
      fig('controller.rss.after-changes', after.rss),
      fig('controller.heap-used.after-changes', after.heapUsed),
      fig('controller.vmhwm', after.hwm),
      fig('haproxy-check.vmhwm', checkPeak),
      fig('haproxy-check.runs', peaks.length, 'count'),
      fig('controller-plus-check.vmhwm', after.hwm + checkPeak),
      fig('controller.heap-limit', opts.heapLimitMiB * MIB),
    ];
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    await stopStack();
    await rm(dir, { recursive: true, force: true });
  }
}
