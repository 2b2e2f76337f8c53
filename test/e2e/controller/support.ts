import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { waitFor } from '#testbed/stack';

export const root = fileURLToPath(new URL('../../../', import.meta.url));

/** GET through HAProxy with a Host header (node:http: fetch cannot set Host). */
export function getWithHost(
  address: string,
  port: number,
  host: string,
  path = '/',
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: address, port, path, headers: { host }, agent: false }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => (body += c))
        .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req
      .on('error', reject)
      .setTimeout(5000, () => req.destroy(new Error('timeout')))
      .end();
  });
}

/** A `haptic` child process with its output collected. */
export interface HapticProcess {
  readonly child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * The port a `haptic run` child printed (its first JSON line names them). Starting takes
 * seconds on a loaded machine: 60 s by default; on time-out it says whether the child exited and
 * how its output ends, instead of a bare time-out.
 */
export function printedPort(
  proc: HapticProcess,
  key: 'healthPort' | 'metricsPort' | 'webhookPort' = 'healthPort',
  timeoutMs = 60_000,
): Promise<number> {
  return waitFor(
    () => {
      const { exitCode, signalCode } = proc.child;
      const state =
        exitCode !== null || signalCode !== null ? `exited (${exitCode ?? signalCode})` : 'running';
      return `the controller to print its ${key} (${state}; its output ends: ${proc.output().slice(-1500)})`;
    },
    () => {
      const m = new RegExp(`"${key}":(\\d+)`).exec(proc.output());
      return m ? Number(m[1]) : undefined;
    },
    timeoutMs,
  );
}

/** Runs the built `haptic` command (npm test builds first). */
export function haptic(args: string[], env: NodeJS.ProcessEnv = {}): HapticProcess {
  const child = spawn(process.execPath, [`${root}bin/haptic.js`, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

export { freePort } from '#testbed/testing';

/** `promtool check metrics` on an exposition (promtool from the project's tools, else PATH). */
export function promtoolCheck(exposition: string): { status: number | null; output: string } {
  const local = join(root, '.tools/bin/promtool');
  const check = spawnSync(existsSync(local) ? local : 'promtool', ['check', 'metrics'], {
    input: exposition,
    encoding: 'utf8',
  });
  return { status: check.status, output: check.stdout + check.stderr };
}
