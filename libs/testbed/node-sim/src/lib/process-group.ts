import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** How a container process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** What to start: the executable and its arguments, environment, working folder and log file. */
export interface ProcessSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly logFile: string;
}

/** Every process group node-sim has started and not yet seen gone, so an exit hook can kill them. */
const liveGroups = new Set<number>();

/** Sends a signal to a whole process group; false when the group is gone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs every process group still alive (the last resort when node-sim itself goes away). */
export function killAllGroupsSync(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Even when node-sim dies without stopping its pods, no container process outlives it.
  process.on('exit', killAllGroupsSync);
}

/**
 * One container process, started as the leader of its own process group (like a container's
 * cgroup, the group is how everything it started is stopped), stdout and stderr to a log file.
 */
export class GroupProcess {
  /** The leader has exited and no live process of its group is left. */
  readonly exited: Promise<ProcessExit>;
  private readonly child: ChildProcess;
  private exit: ProcessExit | undefined;

  constructor(spec: ProcessSpec) {
    installExitHook();
    mkdirSync(dirname(spec.logFile), { recursive: true });
    const log = openSync(spec.logFile, 'a');
    try {
      this.child = spawn(spec.command, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        detached: true,
        stdio: ['ignore', log, log],
      });
    } finally {
      closeSync(log);
    }
    const pid = this.child.pid;
    if (pid !== undefined) liveGroups.add(pid);
    this.exited = new Promise((resolve) => {
      const done = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exit !== undefined) return;
        const exit = { code, signal };
        this.exit = exit;
        if (pid === undefined) {
          resolve(exit);
          return;
        }
        // The leader is gone; whatever else is left of its group goes with it (a container's
        // cgroup does too), and the container counts as exited once they are gone: a signalled
        // child may not have run (and died) yet on a loaded machine, and it may still hold the
        // pod's ports or files.
        signalGroup(pid, 'SIGKILL');
        void groupGone(pid).then(() => {
          liveGroups.delete(pid);
          resolve(exit);
        });
      };
      this.child.once('exit', done);
      this.child.once('error', () => done(127, null));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exit === undefined && this.child.pid !== undefined;
  }

  /**
   * SIGTERM to the group, SIGKILL after the grace period; resolves when the leader has exited and
   * no process of its group is left.
   */
  async stop(graceMs: number): Promise<ProcessExit> {
    const pid = this.child.pid;
    if (!this.running || pid === undefined) return this.exited;
    signalGroup(pid, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        signalGroup(pid, 'SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    return this.exited;
  }
}

/** The process ids /proc lists (empty where there is no /proc). */
function procPids(): string[] {
  try {
    return readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
}

/**
 * Process ids of the live members of a process group (zombies left out: they hold nothing but
 * their process table entry), read from /proc/<pid>/stat; empty where there is no /proc.
 */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const entry of procPids()) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Resolves once no live process is left in the group (bounded: a process stuck in the kernel). */
async function groupGone(pgid: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (groupMembers(pgid).length > 0 && Date.now() < deadline) {
    signalGroup(pgid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Process ids whose environment holds `key=value` (read from /proc; Linux only, empty elsewhere).
 * node-sim marks every process it starts this way, so strays are found even outside their group.
 */
export function markedProcesses(key: string, value: string): number[] {
  const needle = Buffer.from(`${key}=${value}\0`);
  const out: number[] = [];
  for (const entry of procPids()) {
    if (Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`);
      if (environ.includes(needle)) out.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return out;
}

/** SIGKILLs one process; false when it is already gone. */
export function killPid(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
