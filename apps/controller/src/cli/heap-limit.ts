// The Node equivalent of GOMEMLIMIT: the V8 heap limit derived from the cgroup memory limit at
// start, so that the process is collected before the kernel kills it, with room left for what
// the heap does not hold (haproxy -c children, buffers, code). bin/haptic.js applies it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Share of the cgroup memory limit given to the V8 old-space heap (307 MiB of 512 Mi). The other
 * 40 % holds what the heap limit does not bound: the process's own non-heap memory (new space,
 * code, native buffers: about 110 MiB, measured as RSS minus heap used) and the one `haproxy -c`
 * validation runs at a time (ValidationService's concurrency is 1), whose peak grows with the
 * configuration (Ingress library, HAProxy 3.0: 24 MiB at 20 Ingresses, 72 MiB at 1,000, about
 * 500 MiB at 10,000 with 8 server slots per backend). See docs/operations/performance.md.
 */
export const HEAP_SHARE_OF_MEMORY_LIMIT = 0.6;

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
  return limit === undefined ? undefined : [`--max-old-space-size=${heapLimitMiB(limit)}`];
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
