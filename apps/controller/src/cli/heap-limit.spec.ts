import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  HEAP_SHARE_OF_MEMORY_LIMIT,
  cgroupMemoryLimit,
  heapFlags,
  heapLimitMiB,
  heapNodeFlags,
  MALLOC_ENV,
  mallocEnv,
  semiSpaceMiB,
} from './heap-limit.js';

const MIB = 1024 * 1024;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A fake /sys/fs/cgroup: files relative to the root with their contents. */
function fakeCgroup(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'haptic-cgroup-'));
  dirs.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the heap limit derived from the cgroup memory limit', () => {
  it('reads cgroup v2 memory.max of the process cgroup (a container sees its own at the root)', () => {
    const root = fakeCgroup({ 'memory.max': `${512 * MIB}\n` });
    expect(cgroupMemoryLimit({ root, selfCgroup: '0::/\n' })).toBe(512 * MIB);
    const nested = fakeCgroup({
      'kubepods/pod1/memory.max': `${256 * MIB}\n`,
      'memory.max': 'max\n',
    });
    expect(cgroupMemoryLimit({ root: nested, selfCgroup: '0::/kubepods/pod1\n' })).toBe(256 * MIB);
  });

  it('reads cgroup v1 memory.limit_in_bytes', () => {
    const root = fakeCgroup({ 'memory/docker/abc/memory.limit_in_bytes': `${1024 * MIB}\n` });
    const selfCgroup = '12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n';
    expect(cgroupMemoryLimit({ root, selfCgroup })).toBe(1024 * MIB);
  });

  it('finds no limit when there is none ("max", v1 unlimited, no cgroup files)', () => {
    expect(
      cgroupMemoryLimit({ root: fakeCgroup({ 'memory.max': 'max\n' }), selfCgroup: '0::/\n' }),
    ).toBeUndefined();
    const v1 = fakeCgroup({ 'memory/memory.limit_in_bytes': '9223372036854771712\n' });
    expect(cgroupMemoryLimit({ root: v1, selfCgroup: '5:memory:/\n' })).toBeUndefined();
    expect(cgroupMemoryLimit({ root: fakeCgroup({}), selfCgroup: '' })).toBeUndefined();
  });

  it('gives the heap its share of the limit, leaving the rest for haproxy -c and the process', () => {
    expect(HEAP_SHARE_OF_MEMORY_LIMIT).toBe(0.34);
    expect(heapLimitMiB(512 * MIB)).toBe(174);
    expect(heapLimitMiB(2048 * MIB)).toBe(696);
    expect(heapLimitMiB(50 * MIB)).toBe(64); // never below the floor
  });

  it('sizes the semi-space at 1/64 of the heap limit, a power of two from 1 to 16 MiB', () => {
    expect(semiSpaceMiB(307)).toBe(4);
    expect(semiSpaceMiB(230)).toBe(2);
    expect(semiSpaceMiB(64)).toBe(1);
    expect(semiSpaceMiB(1228)).toBe(16);
    expect(semiSpaceMiB(921)).toBe(8);
    expect(semiSpaceMiB(8192)).toBe(16);
    expect(heapNodeFlags(307)).toEqual(['--max-old-space-size=307', '--max-semi-space-size=4']);
  });

  it('re-executes with --max-old-space-size only when no limit was given', () => {
    const root = fakeCgroup({ 'memory.max': `${512 * MIB}\n` });
    const paths = { root, selfCgroup: '0::/\n' };
    expect(heapFlags([], {}, paths)).toEqual([
      '--max-old-space-size=174',
      '--max-semi-space-size=2',
    ]);
    // a semi-space size given by the operator is kept
    expect(heapFlags(['--max-semi-space-size=8'], {}, paths)).toEqual(['--max-old-space-size=174']);
    expect(heapFlags(['--max-old-space-size=100'], {}, paths)).toBeUndefined();
    expect(
      heapFlags([], { NODE_OPTIONS: '--enable-source-maps --max-old-space-size=200' }, paths),
    ).toBeUndefined();
    expect(
      heapFlags([], {}, { root: fakeCgroup({ 'memory.max': 'max' }), selfCgroup: '0::/' }),
    ).toBeUndefined();
  });

  it('adds the malloc settings to the environment, keeping any the operator set', () => {
    const env = mallocEnv({ PATH: '/bin', MALLOC_ARENA_MAX: '4' });
    expect(env).toEqual({
      PATH: '/bin',
      MALLOC_ARENA_MAX: '4',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '131072',
    });
    expect(mallocEnv({})).toEqual(MALLOC_ENV);
    const given = { MALLOC_ARENA_MAX: '1' };
    mallocEnv(given);
    expect(given).toEqual({ MALLOC_ARENA_MAX: '1' }); // not changed in place
  });
});
