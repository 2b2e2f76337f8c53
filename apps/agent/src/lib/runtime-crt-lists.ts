import { cliCommand, payloadMessage, type RuntimeSocket } from '#haproxy-config';
import { ApiError } from '../agent.errors.js';
import { crtListLine, parseCrtList, type CrtListEntry } from './storage.js';

/** crt-list files the running worker knows (`show ssl crt-list`). */
export async function runtimeCrtLists(admin: RuntimeSocket): Promise<string[]> {
  const reply = await admin.send('show ssl crt-list');
  return reply
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** The name HAProxy uses for a crt-list: exact, or the one whose base name matches. */
export async function findRuntimeCrtList(admin: RuntimeSocket, name: string): Promise<string> {
  const names = await runtimeCrtLists(admin);
  const found = names.find((n) => n === name) ?? names.find((n) => n.split('/').pop() === name);
  if (!found) throw new ApiError(404, `crt-list ${name} not found`);
  return found;
}

/**
 * Entries of a loaded crt-list (`show ssl crt-list -n L`: `file:line [options] filters`).
 * HAProxy prints the options it applied in full; sni filters and the file are as given.
 */
export async function runtimeCrtListEntries(
  admin: RuntimeSocket,
  list: string,
): Promise<CrtListEntry[]> {
  const reply = await admin.send(cliCommand('show', 'ssl', 'crt-list', '-n', list));
  const entries: CrtListEntry[] = [];
  for (const raw of reply.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+?):(\d+)(\s.*)?$/.exec(line);
    if (!m) continue;
    const [parsed] = parseCrtList(`${m[1] ?? ''}${m[3] ?? ''}`);
    if (parsed) entries.push({ ...parsed, line_number: Number(m[2]) });
  }
  return entries;
}

/** Appends one entry (`add ssl crt-list L <<` with the line as payload: options need it). */
export async function addRuntimeCrtListEntry(
  admin: RuntimeSocket,
  list: string,
  entry: Omit<CrtListEntry, 'line_number'>,
): Promise<void> {
  const reply = await admin.send(
    payloadMessage(cliCommand('add', 'ssl', 'crt-list', list), [crtListLine(entry)]),
    { timeoutMs: 60_000 },
  );
  if (!/Success!/.test(reply))
    throw new ApiError(400, `add ssl crt-list ${list} ${entry.file}: ${reply.trim()}`);
}

/** Removes one entry (`del ssl crt-list L F[:line]`). */
export async function deleteRuntimeCrtListEntry(
  admin: RuntimeSocket,
  list: string,
  file: string,
  line?: number,
): Promise<void> {
  const target = line === undefined ? file : `${file}:${line}`;
  const reply = await admin.send(cliCommand('del', 'ssl', 'crt-list', list, target));
  if (/not found|can't find|can't be found|no such/i.test(reply))
    throw new ApiError(404, `del ssl crt-list ${list} ${target}: ${reply.trim()}`);
  if (!/deleted|Success/i.test(reply))
    throw new ApiError(400, `del ssl crt-list ${list} ${target}: ${reply.trim()}`);
}
