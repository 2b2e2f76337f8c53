import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { median, type Figure } from './figures.js';
import { ingressWorld, type TlsPair } from './manifests.js';

const run = promisify(execFile);
/** GNU time reports the command's CPU and peak RSS (children included); without it, wall only. */
const GNU_TIME = '/usr/bin/time';

export interface OfflineRenderOptions {
  /** A built haptic checkout: `bin/haptic.js` and `scripts/assemble-library.mjs`. */
  readonly root: string;
  /** Ingress counts (each with its Service and EndpointSlice; a TLS Secret per 20). */
  readonly sizes: readonly number[];
  readonly repetitions: number;
  /** The HAProxy binary for `haproxy -c` (`haptic render --validate`); none: no ratio. */
  readonly haproxyBin?: string;
  readonly tls?: TlsPair;
  readonly log?: (line: string) => void;
  /** Keep the dumps, config and outputs in this folder (e.g. to profile a run); else a temporary one. */
  readonly keepDir?: string;
}

interface Sample {
  readonly wallMs: number;
  readonly cpuMs?: number;
  readonly maxRssBytes?: number;
}

/** The generated cluster at `n` Ingresses as one multi-document YAML file, as a dump would be. */
function dumpOf(n: number, tls: TlsPair | undefined): string {
  const world = ingressWorld({ ingresses: n, tlsEvery: 20, ...(tls ? { tls } : {}) });
  const objects = [
    ...world.ingressclasses,
    ...world.secrets,
    ...world.services,
    ...world.endpointslices,
    ...world.ingresses,
  ];
  return objects.map((o) => stringify(o)).join('---\n');
}

/** GNU time's `-f '%e %U %S %M'` line: wall s, user s, system s, max RSS KiB. */
function parseTime(stderr: string): Omit<Sample, 'wallMs'> {
  const m = /^TIME ([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9]+)$/m.exec(stderr);
  if (!m) return {};
  return {
    cpuMs: (Number(m[2]) + Number(m[3])) * 1000,
    maxRssBytes: Number(m[4]) * 1024,
  };
}

async function renderOnce(
  root: string,
  args: readonly string[],
): Promise<Sample & { stderr: string }> {
  const haptic = [join(root, 'bin/haptic.js'), 'render', ...args];
  const timed = existsSync(GNU_TIME);
  const [cmd, argv] = timed
    ? [GNU_TIME, ['-f', 'TIME %e %U %S %M', process.execPath, ...haptic]]
    : [process.execPath, haptic];
  const started = performance.now();
  const { stderr } = await run(cmd, argv, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return { wallMs: performance.now() - started, ...parseTime(stderr), stderr };
}

function medianOf(samples: readonly Sample[], key: keyof Sample): number | undefined {
  const values = samples.map((s) => s[key]).filter((v): v is number => v !== undefined);
  return values.length === samples.length ? median(values) : undefined;
}

async function atSize(
  n: number,
  dir: string,
  config: string,
  opts: OfflineRenderOptions,
): Promise<Figure[]> {
  const dump = join(dir, `cluster-${n}.yaml`);
  await writeFile(dump, dumpOf(n, opts.tls));
  const bytes = (await stat(dump)).size;
  const base = ['-f', config, '--resources', dump, '-o', join(dir, `out-${n}`)];
  const samples: Sample[] = [];
  for (let r = 0; r < opts.repetitions; r++) {
    samples.push(await renderOnce(opts.root, base));
    opts.log?.(
      `${n}: render ${r + 1}/${opts.repetitions} ${Math.round(samples.at(-1)!.wallMs)} ms`,
    );
  }
  const checks: number[] = [];
  for (let r = 0; opts.haproxyBin && r < opts.repetitions; r++) {
    const { stderr } = await renderOnce(opts.root, [
      ...base,
      '--validate',
      '--haproxy-bin',
      opts.haproxyBin,
    ]);
    const m = /valid \(haproxy -c ([0-9]+) ms\)/.exec(stderr);
    if (!m) throw new Error(`haptic render --validate did not report haproxy -c: ${stderr}`);
    checks.push(Number(m[1]));
  }
  const figures: Figure[] = [
    { name: 'offline-render.dump', value: bytes, unit: 'bytes', n },
    { name: 'offline-render.wall', value: medianOf(samples, 'wallMs')!, unit: 'ms', n },
  ];
  const cpu = medianOf(samples, 'cpuMs');
  const rss = medianOf(samples, 'maxRssBytes');
  if (cpu !== undefined) figures.push({ name: 'offline-render.cpu', value: cpu, unit: 'ms', n });
  if (rss !== undefined)
    figures.push({ name: 'offline-render.max-rss', value: rss, unit: 'bytes', n });
  if (checks.length > 0) {
    const check = median(checks);
    figures.push({ name: 'offline-render.haproxy-check', value: check, unit: 'ms', n });
    figures.push({
      name: 'offline-render.wall/check',
      value: medianOf(samples, 'wallMs')! / check,
      unit: 'ratio',
      n,
    });
  }
  return figures;
}

/**
 * The offline command at scale: `haptic render` of the Ingress library over one generated YAML
 * dump per size (a separate process, as a user runs it), median wall, CPU and peak RSS of
 * `repetitions` runs, and `haproxy -c` of the same output (as `--validate` reports it) with the
 * ratio wall/check.
 */
export async function offlineRenderScenario(opts: OfflineRenderOptions): Promise<Figure[]> {
  const dir = opts.keepDir ?? (await mkdtemp(join(tmpdir(), 'haptic-offline-render-')));
  if (opts.keepDir) await mkdir(opts.keepDir, { recursive: true });
  try {
    const { stdout } = await run(
      process.execPath,
      [join(opts.root, 'scripts/assemble-library.mjs'), '--without-tests'],
      { cwd: opts.root, maxBuffer: 16 * 1024 * 1024 },
    );
    const config = join(dir, 'library.yaml');
    await writeFile(config, stdout);
    const figures: Figure[] = [];
    for (const n of opts.sizes) figures.push(...(await atSize(n, dir, config, opts)));
    return figures;
  } finally {
    if (!opts.keepDir) await rm(dir, { recursive: true, force: true });
  }
}
