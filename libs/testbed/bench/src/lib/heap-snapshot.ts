import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '#testbed/stack';

/**
 * Asks a node process started with `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=DIR` for a heap
 * snapshot and waits until the new `.heapsnapshot` file in DIR stops growing; returns its path.
 */
export async function takeHeapSnapshot(
  pid: number,
  dir: string,
  timeoutMs = 300_000,
): Promise<string> {
  const before = new Set(await readdir(dir));
  process.kill(pid, 'SIGUSR2');
  let lastSize = -1;
  return waitFor(
    `a heap snapshot of pid ${pid} in ${dir}`,
    async () => {
      const file = (await readdir(dir)).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
      if (!file) return undefined;
      const { size } = await stat(join(dir, file));
      const done = size > 0 && size === lastSize;
      lastSize = size;
      return done ? join(dir, file) : undefined;
    },
    timeoutMs,
    2000,
  );
}
