import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from '#testbed/stack';

/** A `haptic` child process with its output kept (the last 64 KiB) for error messages. */
export interface HapticChild {
  readonly child: ChildProcess;
  readonly pid: number;
  output(): string;
  /** Resolves with the first output line matching `pattern` (fails when the process exits first). */
  line(pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Runs `bin/haptic.js` of the checkout at `root` with node flags before it (e.g. a heap limit). */
export function spawnHaptic(
  root: string,
  args: readonly string[],
  nodeFlags: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): HapticChild {
  const child = spawn(process.execPath, [...nodeFlags, join(root, 'bin/haptic.js'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-65536);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    pid: child.pid ?? -1,
    output: () => out,
    async line(pattern, timeoutMs, what) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (child.exitCode !== null || child.signalCode !== null)
          throw new Error(
            `${what}: the process exited (${child.exitCode ?? child.signalCode}): ${out.slice(-2000)}`,
          );
        if (Date.now() > deadline)
          throw new Error(`${what}: not within ${timeoutMs} ms: ${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** `waitFor` of the stack, polling every 10 ms by default: the bench's latencies are timed by it. */
export function poll<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  intervalMs = 10,
): Promise<T> {
  return waitFor(what, check, timeoutMs, intervalMs);
}
