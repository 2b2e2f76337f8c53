import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCommand, type MasterProcTable, parseMasterShowProc, waitUntil } from './haproxy-cli.js';

/** A HAProxy started by a test in master-worker mode, in its own temporary folder. */
export interface HaproxyUnderTest {
  readonly bin: string;
  readonly dir: string;
  readonly configPath: string;
  readonly masterSocket: string;
  readonly adminSocket: string;
  /** Everything the master printed on stderr so far (ALERTs of failed reloads land here). */
  stderr(): string;
  showProc(): Promise<MasterProcTable>;
  /** Stops master and workers (SIGTERM, then SIGKILL after 5 s) and removes the folder. */
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly bin: string;
  /** Builds the configuration; `adminSocket` is the path the `stats socket` line must use. */
  readonly config: (paths: { dir: string; adminSocket: string }) => string;
}

/** Runs `haproxy -c -f <file>` and resolves with its exit code and combined output. */
export function checkConfig(
  bin: string,
  configPath: string,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(bin, ['-c', '-f', configPath], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** A loopback TCP port that was free a moment ago (HAProxy refuses `bind :0`). */
/** Ports this process has handed out: never handed out twice, since HAProxy binds with
 * SO_REUSEPORT and two of its listeners on one port would silently share the traffic. */
const handedOut = new Set<number>();

function anyFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** A port free on `host` now, and not handed out before by this process. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await anyFreePort(host);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error('no free port not handed out before after 100 attempts');
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts HAProxy in master-worker mode with a master socket and waits for its first worker. */
export async function startHaproxy(options: StartOptions): Promise<HaproxyUnderTest> {
  const dir = await mkdtemp(join(tmpdir(), 'haptic-haproxy-'));
  const configPath = join(dir, 'haproxy.cfg');
  const masterSocket = join(dir, 'master.sock');
  const adminSocket = join(dir, 'admin.sock');
  await writeFile(configPath, options.config({ dir, adminSocket }));
  // The master socket needs an absolute path ("missing port specification" otherwise).
  const child = spawn(options.bin, ['-W', '-S', `${masterSocket},mode,600`, '-f', configPath], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const showProc = async (): Promise<MasterProcTable> =>
    parseMasterShowProc(await cliCommand(masterSocket, 'show proc'));
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited(child);
    clearTimeout(timer);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil('the first worker', async () => {
      if (child.exitCode !== null)
        throw new Error(`haproxy exited with ${child.exitCode}: ${stderr}`);
      return (await showProc()).workers.length > 0 ? true : undefined;
    });
  } catch (err) {
    await stop();
    throw new Error(`haproxy did not start: ${stderr}`, { cause: err });
  }
  return {
    bin: options.bin,
    dir,
    configPath,
    masterSocket,
    adminSocket,
    stderr: () => stderr,
    showProc,
    stop,
  };
}

/**
 * Runs `start` (pick free ports, render, start HAProxy) again, up to `tries` times in all, when
 * HAProxy could not bind a port found free moments before: another test on the machine took it
 * meanwhile. Any other failure is thrown at once.
 */
export async function retryPortRace<T>(start: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (attempt >= tries || !/already in use/.test(String(e))) throw e;
    }
  }
}
