import { connect } from 'node:net';
import { parseShowProc, type ProcTable } from '#haproxy-config';

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

/** `show proc` whose master line is present (the format and its types belong to #haproxy-config). */
export type MasterProcTable = ProcTable & { readonly master: NonNullable<ProcTable['master']> };

/** Parses `show proc` with #haproxy-config's parser; a reply without a master line is an error. */
export function parseMasterShowProc(text: string): MasterProcTable {
  const table = parseShowProc(text);
  const master = table.master;
  if (!master) throw new Error(`not a 'show proc' reply: ${JSON.stringify(text.slice(0, 200))}`);
  return { ...table, master };
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
