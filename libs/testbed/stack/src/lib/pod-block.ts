import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StackError } from './stack.errors.js';

/** Blocks of five /24s from 127.0.40.0 up: 40 blocks, 127.0.40.0 – 127.0.239.255. */
const FIRST_THIRD = 40;
const BLOCK = 5;
const BLOCKS = 40;

/** Pod addresses one stack owns on this machine, and its Node's address (outside the pod range). */
export interface PodBlock {
  readonly first: string;
  readonly last: string;
  readonly nodeIP: string;
  /**
   * A loopback service CIDR that belongs to this block alone (127.100.0.0/16 – 127.139.0.0/16), for
   * a test-bed whose node-sim listens on cluster IPs: two stacks must not share those either.
   */
  readonly serviceCidr: string;
  /** Gives the block back (idempotent). */
  release(): void;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Creates the lock file of a block; false when a live process holds it. */
function tryLock(path: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(readFileSync(path, { encoding: 'utf8', flag: 'r' }).trim() || NaN);
    // written but not yet filled in by its holder: taken
    if (!Number.isInteger(holder) || alive(holder)) return false;
    try {
      unlinkSync(path); // its holder is gone: a stale claim
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * Claims a block of pod addresses no other stack on this machine uses (a lock file per block in
 * the temp folder, naming the holder's pid; a dead holder's claim is taken over). Two stacks must
 * never share a pod address: HAProxy binds its listeners with SO_REUSEPORT, so two HAProxy pods
 * of different stacks on one address would both accept, and the kernel would split one pod's
 * connections between two configurations.
 */
export function claimPodBlock(dir: string = tmpdir()): PodBlock {
  const order = [...Array(BLOCKS).keys()].sort(() => Math.random() - 0.5);
  for (const i of order) {
    const third = FIRST_THIRD + i * BLOCK;
    const path = join(dir, `haptic-stack-pods-127.0.${third}.lock`);
    if (!tryLock(path)) continue;
    let released = false;
    return {
      first: `127.0.${third}.1`,
      last: `127.0.${third + BLOCK - 1}.253`,
      nodeIP: `127.0.${third + BLOCK - 1}.254`,
      serviceCidr: `127.${100 + i}.0.0/16`,
      release() {
        if (released) return;
        released = true;
        try {
          if (readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
        } catch {
          // already gone
        }
      },
    };
  }
  throw new StackError(`all ${BLOCKS} pod address blocks are claimed by running stacks`);
}
