// The Node equivalent of GOMEMLIMIT: the V8 heap limit derived from the cgroup memory limit at
// start, so that the process is collected before the kernel kills it, with room left for what
// the heap does not hold (haproxy -c children, buffers, code). bin/haptic.js applies it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Share of the cgroup memory limit given to the V8 old-space heap (174 MiB of 512 Mi). V8 lets
 * the heap grow towards its limit before collecting, so the limit, more than the live data, sets
 * the resident size: at 10,000 Ingresses a 307 MiB limit (60 %) held 360 MiB resident, 230 MiB
 * (45 %) 285 MiB, 204 MiB (40 %) 264-269 MiB at its peak. Since client-node loads without its
 * generated API clients (cli/client-node-hooks.ts, about 21 MiB of heap fewer) the live heap at
 * 10,000 peaks between 150 and 158 MiB (a 150 MiB limit ran out of heap, 158 MiB did not), so
 * 174 MiB (34 %) leaves 16-24 MiB of margin and peaks at 251-254 MiB resident. The other 66 %
 * holds what the heap limit does not bound: the process's memory outside the old-space heap (the
 * node binary, code, native buffers, the young generation; about 80 MiB) and the one `haproxy -c`
 * validation runs at a time (ValidationService's concurrency is 1; about 54 MiB at 1,000 and at
 * 10,000 Ingresses, since it checks a large configuration in parts). See
 * docs/operations/performance.md ("Budget").
 */
export const HEAP_SHARE_OF_MEMORY_LIMIT = 0.34;

/** Smallest heap limit haptic sets (below this it would not start its modules). */
export const MIN_HEAP_MIB = 64;

/** cgroup v1 reports "no limit" as a huge number rounded down to a page (2^63 - 4096). */
const V1_UNLIMITED = 2 ** 60;

const MIB = 1024 * 1024;

export interface CgroupPaths {
  /** Where the cgroup file system is mounted (/sys/fs/cgroup). */
  readonly root: string;
  /** Contents of /proc/self/cgroup. */
  readonly selfCgroup: string;
}

function readNumber(file: string): number | 'max' | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (text === 'max') return 'max';
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** Candidate files, the process's own cgroup first, then the root (a container's namespace). */
function candidates(paths: CgroupPaths): string[] {
  const files: string[] = [];
  for (const line of paths.selfCgroup.split('\n')) {
    const [, controllers, path] = line.split(':');
    if (path === undefined || controllers === undefined) continue;
    if (controllers === '') files.push(join(paths.root, path, 'memory.max'));
    else if (controllers.split(',').includes('memory'))
      files.push(join(paths.root, 'memory', path, 'memory.limit_in_bytes'));
  }
  files.push(join(paths.root, 'memory.max'), join(paths.root, 'memory/memory.limit_in_bytes'));
  return [...new Set(files)];
}

/** The cgroup memory limit in bytes (v2 memory.max, v1 memory.limit_in_bytes), or undefined when there is none. */
export function cgroupMemoryLimit(paths: CgroupPaths): number | undefined {
  for (const file of candidates(paths)) {
    const value = readNumber(file);
    if (value === undefined) continue;
    if (value === 'max' || value >= V1_UNLIMITED) return undefined;
    return value;
  }
  return undefined;
}

/** The heap limit in MiB for a memory limit in bytes. */
export function heapLimitMiB(memoryLimitBytes: number): number {
  return Math.max(MIN_HEAP_MIB, Math.floor((memoryLimitBytes * HEAP_SHARE_OF_MEMORY_LIMIT) / MIB));
}

/** Largest young-generation semi-space haptic sets: V8's own default at these heap sizes. */
export const MAX_SEMI_SPACE_MIB = 16;

/**
 * The semi-space size in MiB for a heap limit: 1/64 of it, rounded down to a power of two, 1 to
 * 16 MiB (2 MiB for the chart's 174 MiB). V8 otherwise gives every heap above about 256 MiB the
 * full 16 MiB, so its new space (two semi-spaces) holds 32 MiB resident; haptic's short-lived
 * garbage (render output, JSON bodies) is promoted or collected at the same rate either way.
 */
export function semiSpaceMiB(heapMiB: number): number {
  const share = Math.max(1, heapMiB / 64);
  return Math.min(MAX_SEMI_SPACE_MIB, 2 ** Math.floor(Math.log2(share)));
}

/** The node flags for a heap limit in MiB: the old-space limit and the semi-space size. */
export function heapNodeFlags(heapMiB: number): string[] {
  return [`--max-old-space-size=${heapMiB}`, `--max-semi-space-size=${semiSpaceMiB(heapMiB)}`];
}

/** True when the heap limit was already chosen (a flag to node, or NODE_OPTIONS). */
export function heapLimitGiven(execArgv: readonly string[], nodeOptions = ''): boolean {
  const flag = /(^|\s)--max[-_]old[-_]space[-_]size(=|\s|$)/;
  return execArgv.some((a) => flag.test(a)) || flag.test(nodeOptions);
}

/**
 * The node flags to re-execute with, or undefined to run as is (limit already given, or no
 * cgroup limit).
 */
export function heapFlags(
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
  paths: CgroupPaths,
): string[] | undefined {
  if (heapLimitGiven(execArgv, env['NODE_OPTIONS'])) return undefined;
  const limit = cgroupMemoryLimit(paths);
  if (limit === undefined) return undefined;
  const semi = /(^|\s)--max[-_]semi[-_]space[-_]size(=|\s|$)/;
  const semiGiven = execArgv.some((a) => semi.test(a)) || semi.test(env['NODE_OPTIONS'] ?? '');
  return heapNodeFlags(heapLimitMiB(limit)).filter((f) => !semiGiven || !semi.test(f));
}

/**
 * glibc malloc settings for a process under a memory limit: two arenas instead of eight per core
 * (each thread's arena keeps its own free memory), and blocks of 128 KiB and more mapped on their
 * own and returned when freed (by default both thresholds grow with the largest block freed, so
 * big render and JSON buffers stay resident in the heap). At 10,000 Ingresses malloc held 23.9
 * MiB resident without them, 16-17 MiB with them.
 */
export const MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** The environment to re-execute with: `env` plus MALLOC_ENV, never overriding a variable set. */
export function mallocEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const [name, value] of Object.entries(MALLOC_ENV))
    if (out[name] === undefined) out[name] = value;
  return out;
}

/** The real machine's cgroup paths (empty /proc/self/cgroup where there is none). */
export function systemCgroupPaths(): CgroupPaths {
  let selfCgroup = '';
  try {
    selfCgroup = readFileSync('/proc/self/cgroup', 'utf8');
  } catch {
    // not Linux: no cgroup, no derived limit
  }
  return { root: '/sys/fs/cgroup', selfCgroup };
}
