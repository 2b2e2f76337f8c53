// The memory bench: `haptic run` with the default Ingress library against kube-sim holding N
// Ingresses (one host, one path), as many Services and EndpointSlices and up to 1,000 TLS Secrets,
// deploying to one HAProxy pod; the controller runs under the V8 heap limit the chart's memory
// limit gives it. Prints the controller's RSS, V8 heap and VmHWM and its `haproxy -c` peak.
// Run: npm run bench:memory [-- [--ingresses N]... [--changes N] [-o json] [--haproxy-bin PATH]
//                              [--heap-snapshot DIR] [--cpu-prof DIR] [--timeout SECONDS]
//                              [--lease SECONDS] [--heap-limit MIB] [--node-flag FLAG]...]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { generateCertificate } from '#testbed/kube-sim';
import { repoRoot } from '#testbed/stack';
import { heapLimitMiB } from '../../../../apps/controller/src/cli/heap-limit.js';
import {
  formatFigures,
  memoryScenario,
  rounded,
  takeHeapSnapshot,
  type Figure,
} from '../src/index.js';

interface Args {
  sizes: number[];
  changes: number;
  json: boolean;
  haproxyBin: string | undefined;
  snapshotDir: string | undefined;
  cpuProfDir: string | undefined;
  timeoutMs: number | undefined;
  lease: string | undefined;
  /** Overrides the heap limit the chart's memory limit gives (to compare shares). */
  heapLimit: number | undefined;
  /** Extra node flags for the controller. */
  nodeFlags: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    sizes: [],
    changes: 5,
    json: false,
    haproxyBin: undefined,
    snapshotDir: undefined,
    cpuProfDir: undefined,
    timeoutMs: undefined,
    lease: undefined,
    heapLimit: undefined,
    nodeFlags: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--ingresses' || a === '-n') args.sizes.push(Number(argv[++i]));
    else if (/^[0-9]+$/.test(a)) args.sizes.push(Number(a));
    else if (a === '--changes') args.changes = Number(argv[++i]);
    else if (a === '-o' || a === '--output') args.json = argv[++i] === 'json';
    else if (a === '--haproxy-bin') args.haproxyBin = argv[++i];
    else if (a === '--heap-snapshot') args.snapshotDir = argv[++i];
    else if (a === '--cpu-prof') args.cpuProfDir = argv[++i];
    else if (a === '--timeout') args.timeoutMs = Number(argv[++i]) * 1000;
    else if (a === '--lease') args.lease = argv[++i];
    else if (a === '--heap-limit') args.heapLimit = Number(argv[++i]);
    else if (a === '--node-flag') args.nodeFlags.push(argv[++i] ?? '');
    else throw new Error(`unknown argument ${a}`);
  }
  if (args.sizes.length === 0) args.sizes = [1000, 10000];
  if (args.heapLimit !== undefined && !(Number.isInteger(args.heapLimit) && args.heapLimit >= 64))
    throw new Error('--heap-limit needs MiB, at least 64');
  if (args.sizes.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('--ingresses needs a count');
  return args;
}

/** The chart's controller memory limit (helm/haptic/values.yaml), in bytes. */
function chartMemoryLimit(): number {
  const values = parse(readFileSync(join(repoRoot(), 'helm/haptic/values.yaml'), 'utf8')) as {
    controller?: { resources?: { limits?: { memory?: string } } };
  };
  const text = values.controller?.resources?.limits?.memory ?? '';
  const m = /^(\d+)(Mi|Gi)$/.exec(text);
  if (!m) throw new Error(`chart controller memory limit ${text || '(none)'} is not NMi/NGi`);
  return Number(m[1]) * (m[2] === 'Gi' ? 1024 ** 3 : 1024 ** 2);
}

/** `--lease 120s`: leaseDuration 120s, renewDeadline 100s, retryPeriod 2s. */
function leaseTiming(text: string): Record<string, string> {
  const m = /^(\d+)s$/.exec(text);
  if (!m || Number(m[1]) < 15) throw new Error('--lease needs seconds of at least 15, e.g. 120s');
  const s = Number(m[1]);
  return { leaseDuration: `${s}s`, renewDeadline: `${Math.round(s * 0.8)}s`, retryPeriod: '2s' };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const haproxyBin = resolveHaproxyBinary(args.haproxyBin);
  const limit = chartMemoryLimit();
  const heap = args.heapLimit ?? heapLimitMiB(limit);
  const tls = await generateCertificate({ commonName: 'bench', dnsNames: ['*.example.com'] });
  const stop = new AbortController();
  const onSignal = (): void => {
    console.error('bench:memory: stopping the stack');
    stop.abort();
    process.exitCode = 130;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const figures: Figure[] = [];
  for (const n of args.sizes) {
    if (stop.signal.aborted) break;
    figures.push(
      ...(await memoryScenario({
        ingresses: n,
        tls,
        haproxyBin,
        heapLimitMiB: heap,
        changes: args.changes,
        ...(args.timeoutMs ? { timeoutMs: args.timeoutMs } : {}),
        ...(args.lease ? { leaderElection: leaseTiming(args.lease) } : {}),
        signal: stop.signal,
        ...(args.cpuProfDir ? { cpuProfDir: args.cpuProfDir } : {}),
        nodeFlags: [
          ...args.nodeFlags,
          ...(args.snapshotDir
            ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${args.snapshotDir}`]
            : []),
        ],
        ...(args.snapshotDir
          ? {
              inspect: async (_stack, pid) => {
                const file = await takeHeapSnapshot(pid, args.snapshotDir!);
                console.error(`bench:memory: heap snapshot ${file}`);
              },
            }
          : {}),
        log: (l) => console.error(`bench:memory: ${l}`),
      })),
    );
  }
  if (args.json) console.log(JSON.stringify(figures.map(rounded), null, 2));
  else {
    console.log(
      `haproxy: ${haproxyBin}; chart memory limit ${limit / 2 ** 20} MiB → heap ${heap} MiB`,
    );
    console.log(formatFigures(figures));
    for (const f of figures.filter((x) => x.unit === 'bytes'))
      console.log(`${f.name} n=${f.n}: ${(f.value / 2 ** 20).toFixed(1)} MiB`);
  }
}

main().catch((e: unknown) => {
  console.error(`bench:memory: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
});
