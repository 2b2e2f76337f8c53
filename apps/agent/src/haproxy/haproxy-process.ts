import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseShowProc, RuntimeSocket, type ProcTable } from '#haproxy-config';
import { HaproxyProcessError } from '../agent.errors.js';
import type { AgentPaths } from './haproxy-paths.js';
import { hasSyncReload, type HaproxyVersion } from './haproxy-version.js';

export interface HaproxyProcessOptions {
  readonly bin: string;
  readonly paths: AgentPaths;
  readonly version: HaproxyVersion;
  /** The pod address, exported to HAProxy as POD_IP. */
  readonly podIp: string | undefined;
  /** Upper bound for start, reload and stop (ms). */
  readonly timeoutMs?: number;
  /** Told every message sent to the master or admin socket (as sent: escaped). */
  readonly onRuntimeMessage?: (message: string) => void;
  /**
   * Attach to a master started by someone else (the HAProxy container of the pod) instead of
   * starting one: never spawn, signal or stop it; wait up to `timeoutMs` for it to answer.
   */
  readonly attach?: boolean;
}

/** The result of one reload: whether a new worker took over, and what HAProxy said. */
export interface ReloadOutcome {
  readonly ok: boolean;
  readonly response: string;
  readonly workerPid?: number;
}

export interface CheckResult {
  readonly ok: boolean;
  readonly output: string;
}

/**
 * One HAProxy master-worker process run from the agent's config directory. It is started
 * detached (its own session, output appended to run/haproxy.log) so that it outlives an agent
 * crash; a restarted agent adopts it through the pid file and the master socket. In attach mode
 * the master belongs to another container: the agent only talks to its sockets (PIDs are those
 * of HAProxy's own PID namespace, so nothing here signals them).
 */
export class HaproxyProcess {
  readonly master: RuntimeSocket;
  readonly admin: RuntimeSocket;
  private masterPid = 0;
  private adoptedFlag = false;
  private masterVersionText = '';
  private readonly timeoutMs: number;

  constructor(private readonly opts: HaproxyProcessOptions) {
    this.master = new RuntimeSocket(opts.paths.masterSocket, 10_000, opts.onRuntimeMessage);
    this.admin = new RuntimeSocket(opts.paths.adminSocket, 10_000, opts.onRuntimeMessage);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  get pid(): number {
    return this.masterPid;
  }
  get adopted(): boolean {
    return this.adoptedFlag;
  }
  get version(): HaproxyVersion {
    return this.opts.version;
  }
  /** The version the attached master reports in `show proc` ('' until attached). */
  get masterVersion(): string {
    return this.masterVersionText;
  }
  /** True when the master belongs to another container (attach mode). */
  get attached(): boolean {
    return this.opts.attach === true;
  }

  private env(): NodeJS.ProcessEnv {
    const env = { ...process.env };
    if (this.opts.podIp !== undefined) env.POD_IP = this.opts.podIp;
    return env;
  }

  /** Runs `haproxy -c` on `configFile` plus the agent fragment, from the config dir. */
  check(configFile: string): Promise<CheckResult> {
    const { bin, paths } = this.opts;
    return new Promise((resolve) => {
      execFile(
        bin,
        ['-c', '-f', configFile, '-f', paths.fragmentFile],
        { cwd: paths.dir, env: this.env(), timeout: this.timeoutMs, maxBuffer: 8 << 20 },
        (err, stdout, stderr) => resolve({ ok: err === null, output: `${stdout}${stderr}`.trim() }),
      );
    });
  }

  /** Adopts a running master of this config dir, or starts a new one (attach mode: waits for it). */
  async startOrAdopt(): Promise<void> {
    if (this.attached) return this.attachToMaster();
    if (await this.tryAdopt()) return;
    await this.start();
  }

  /** Waits until the master socket answers with a current worker, bounded by `timeoutMs`. */
  private async attachToMaster(): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    let last = 'no answer';
    while (Date.now() < deadline) {
      const table = await this.showProc().catch((e: unknown) => {
        last = e instanceof Error ? e.message : String(e);
        return undefined;
      });
      if (table?.master && table.workers.length > 0) {
        this.masterPid = table.master.pid;
        this.masterVersionText = table.master.version;
        this.adoptedFlag = true;
        return;
      }
      await sleep(100);
    }
    throw new HaproxyProcessError(
      `no HAProxy master with a worker answered on ${this.opts.paths.masterSocket} within ${this.timeoutMs} ms (${last}): is HAProxy started with -W -S on that socket, on the shared volume?`,
    );
  }

  /**
   * Attach mode: asks the master whether it still runs and notes its PID (a restarted HAProxy
   * container has a new master); false while it does not answer.
   */
  async refreshAttached(): Promise<boolean> {
    const table = await this.showProc().catch(() => undefined);
    if (!table?.master || table.workers.length === 0) return false;
    this.masterPid = table.master.pid;
    return true;
  }

  private async tryAdopt(): Promise<boolean> {
    const { paths } = this.opts;
    const pid = readPid(paths.pidFile);
    if (pid === undefined || !isAlive(pid)) return false;
    try {
      const table = await this.showProc();
      if (table.master?.pid === pid) {
        this.masterPid = pid;
        this.adoptedFlag = true;
        return true;
      }
    } catch {
      // the socket is dead: fall through
    }
    // A live process with our pid file but no working master socket: stop it if it is ours.
    if (cmdline(pid).includes(paths.masterSocket)) await this.killAndWait(pid);
    return false;
  }

  private async start(): Promise<void> {
    const { bin, paths } = this.opts;
    for (const f of [paths.masterSocket, paths.adminSocket, paths.pidFile])
      rmSync(f, { force: true });
    const offset = logSize(paths.logFile);
    const logFd = openSync(paths.logFile, 'a');
    const args = ['-W', '-S', `${paths.masterSocket},mode,600`, '-p', paths.pidFile];
    args.push('-f', paths.configFile, '-f', paths.fragmentFile);
    const child = spawn(bin, args, {
      cwd: paths.dir,
      env: this.env(),
      detached: true,
      stdio: ['ignore', logFd, logFd],
    });
    closeSync(logFd);
    let exited: string | undefined;
    child.on('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
    child.on('error', (e) => (exited = e.message));
    child.unref();
    const deadline = Date.now() + this.timeoutMs;
    while (Date.now() < deadline) {
      if (exited) break;
      const table = await this.showProc().catch(() => undefined);
      if (table?.master && table.workers.length > 0) {
        this.masterPid = table.master.pid;
        return;
      }
      await sleep(25);
    }
    throw new HaproxyProcessError(
      `HAProxy did not start (${exited ?? 'timeout'}): ${tail(await this.logSince(offset))}`,
    );
  }

  /** `show proc` on the master socket. */
  async showProc(): Promise<ProcTable> {
    return parseShowProc(await this.master.send('show proc'));
  }

  /** True while the master process exists (cheap: no socket round trip). */
  masterAlive(): boolean {
    return this.masterPid > 0 && isAlive(this.masterPid);
  }

  /** True when the master answers and has a current worker. */
  async isUp(): Promise<boolean> {
    const t = await this.showProc().catch(() => undefined);
    return (t?.workers.length ?? 0) > 0;
  }

  /** Reloads through the master socket in the dialect of the detected version and verifies it. */
  async reload(): Promise<ReloadOutcome> {
    const out = await (hasSyncReload(this.opts.version) ? this.reloadSync() : this.reloadSilent());
    if (out.ok && out.workerPid !== undefined) await this.waitAdminSocket(out.workerPid);
    return out;
  }

  /**
   * Waits (bounded) until the admin socket is answered by the new worker, so runtime commands
   * sent after a reload reach the worker that serves the new configuration, not the old one.
   */
  private async waitAdminSocket(pid: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const info = await this.admin.send('show info').catch(() => '');
      if (new RegExp(`^Pid: ${pid}$`, 'm').test(info)) return;
      await sleep(10);
    }
  }

  /** 2.6: `reload` answers nothing; a new worker PID (or `[failed: N]`) in `show proc` tells. */
  private async reloadSilent(): Promise<ReloadOutcome> {
    const before = await this.showProc();
    const known = new Set([...before.workers, ...before.oldWorkers].map((w) => w.pid));
    const offset = logSize(this.opts.paths.logFile);
    await this.master
      .send('reload', { allowEmpty: true, timeoutMs: this.timeoutMs })
      .catch(() => '');
    const deadline = Date.now() + this.timeoutMs;
    while (Date.now() < deadline) {
      await sleep(20);
      const t = await this.showProc().catch(() => undefined);
      if (!t?.master) continue;
      const fresh = t.workers.find((w) => !known.has(w.pid));
      if (fresh) return { ok: true, workerPid: fresh.pid, response: await this.logSince(offset) };
      const reloaded = t.master.reloads > (before.master?.reloads ?? 0);
      if (reloaded && t.master.failed > 0) {
        return { ok: false, response: (await this.logSince(offset)) || 'reload failed' };
      }
    }
    return { ok: false, response: `no new worker within ${this.timeoutMs} ms` };
  }

  /** 2.7+/3.x: `reload` answers `Success=1|0`, `--`, then the start-up log. */
  private async reloadSync(): Promise<ReloadOutcome> {
    const reply = await this.master.send('reload', { timeoutMs: this.timeoutMs });
    const ok = /^Success=1/m.test(reply);
    const response = reply.replace(/^Success=\d\s*\n?(--\n)?/m, '').trim();
    if (!ok) return { ok, response: response || reply };
    const t = await this.showProc();
    const worker = t.workers[0];
    return worker ? { ok, response, workerPid: worker.pid } : { ok, response };
  }

  /** Stops the master (and with it every worker); an attached master is left to its container. */
  async stop(): Promise<void> {
    if (this.masterPid > 0 && !this.attached) await this.killAndWait(this.masterPid);
    this.masterPid = 0;
  }

  private async killAndWait(pid: number): Promise<void> {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    for (let i = 0; i < 200 && isAlive(pid); i++) await sleep(25);
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }

  /** HAProxy's own output (master stderr) written since `offset`. */
  async logSince(offset: number): Promise<string> {
    const file = this.opts.paths.logFile;
    if (!existsSync(file)) return '';
    const fh = await open(file, 'r');
    try {
      const size = (await fh.stat()).size;
      const start = Math.max(offset, size - 65_536);
      const buf = Buffer.alloc(Math.max(0, size - start));
      await fh.read(buf, 0, buf.length, start);
      return buf.toString();
    } finally {
      await fh.close();
    }
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The last lines of HAProxy output, for an error message. */
export function tail(text: string, lines = 20): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
