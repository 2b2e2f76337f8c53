import { connect } from 'node:net';

export interface CliOptions {
  /** Whole-exchange limit; the master's synchronous `reload` on 3.x needs seconds. */
  readonly timeoutMs?: number;
}

/**
 * Sends one command (with an optional `<<` payload already in `command`) to a HAProxy CLI socket
 * in non-interactive mode: write, half-close, read to the end. Resolves with the raw reply.
 */
export function cliCommand(
  socketPath: string,
  command: string,
  options: CliOptions = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of reply to '${command.split('\n')[0]}' within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.end(command.endsWith('\n') ? command : `${command}\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** One process line of the master CLI's `show proc`. */
export interface ProcEntry {
  readonly pid: number;
  readonly type: string;
  readonly reloads: number;
  readonly version: string;
}

export interface ProcTable {
  readonly master: ProcEntry & { readonly failedReloads: number };
  /** Current workers (the `# workers` block). */
  readonly workers: readonly ProcEntry[];
  /** Workers still draining after a reload (`# old workers`). */
  readonly oldWorkers: readonly ProcEntry[];
}

function parseProcLine(line: string): ProcEntry | undefined {
  const m = /^(\d+)\s+(\S+)\s+(\d+)(?:\s+\[failed: \d+\])?\s+\S+\s+(\S+)/.exec(line);
  if (!m) return undefined;
  return { pid: Number(m[1]), type: m[2]!, reloads: Number(m[3]), version: m[4]! };
}

/** Parses `show proc` (same columns on 2.6 and 3.0). */
export function parseShowProc(text: string): ProcTable {
  let block = 'master';
  let master: ProcTable['master'] | undefined;
  const workers: ProcEntry[] = [];
  const oldWorkers: ProcEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('# ')) {
      block = line.slice(2).trim();
      continue;
    }
    const entry = parseProcLine(line);
    if (!entry) continue;
    if (entry.type === 'master') {
      master = { ...entry, failedReloads: Number(/\[failed: (\d+)\]/.exec(line)?.[1] ?? 0) };
    } else if (block === 'workers') workers.push(entry);
    else if (block === 'old workers') oldWorkers.push(entry);
  }
  if (!master) throw new Error(`not a 'show proc' reply: ${JSON.stringify(text.slice(0, 200))}`);
  return { master, workers, oldWorkers };
}

/** Polls `check` every `intervalMs` until it returns a value (not undefined) or time runs out. */
export async function waitUntil<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 10_000, intervalMs = 20 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err; // e.g. ECONNREFUSED while a 2.6 master re-executes itself
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, { cause: lastError });
}
