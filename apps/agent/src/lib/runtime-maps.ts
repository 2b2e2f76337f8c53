import { basename, isAbsolute, join, relative } from 'node:path';
import {
  chunkPayload,
  cliCommand,
  printMapFile,
  RuntimeCommandError,
  type MapEntry,
  type RuntimeSocket,
} from '#haproxy-config';
import { ApiError } from '../agent.errors.js';
import { writeAtomic } from './config-file.js';

/** A map file loaded by the running HAProxy (`show map`). */
export interface RuntimeMap {
  readonly id: string;
  readonly file: string;
  readonly description: string;
}

/** Parses `show map`: `<id> (<file>) <description>`. */
export function parseShowMap(text: string): RuntimeMap[] {
  const maps: RuntimeMap[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+)\s+\(([^)]*)\)\s*(.*)$/.exec(line.trim());
    if (m) maps.push({ id: m[1] ?? '', file: m[2] ?? '', description: (m[3] ?? '').trim() });
  }
  return maps;
}

/** Lists the maps of the running worker. */
export async function listRuntimeMaps(admin: RuntimeSocket): Promise<RuntimeMap[]> {
  return parseShowMap(await admin.send('show map'));
}

/** Finds a runtime map by file name as HAProxy knows it, its base name, or base name without extension. */
export async function findRuntimeMap(admin: RuntimeSocket, name: string): Promise<RuntimeMap> {
  const maps = await listRuntimeMaps(admin);
  const strip = (s: string) => s.replace(/\.[^.]*$/, '');
  const found =
    maps.find((m) => m.file === name) ??
    maps.find((m) => basename(m.file) === name) ??
    maps.find((m) => strip(basename(m.file)) === name);
  if (!found) throw new ApiError(404, `map ${name} not found`);
  return found;
}

/** The entries of a runtime map (`show map <file>` rows are `<ptr> <key> <value>`). */
export async function runtimeMapEntries(admin: RuntimeSocket, file: string): Promise<MapEntry[]> {
  const reply = await admin.send(cliCommand('show', 'map', file));
  const entries: MapEntry[] = [];
  for (const line of reply.split('\n')) {
    const m = /^0x[0-9a-f]+\s+(\S+)(?:\s(.*))?$/.exec(line);
    if (m) entries.push({ key: m[1] ?? '', value: m[2] ?? '' });
  }
  return entries;
}

/** Checks one entry can be written as a map line. */
export function checkEntry(key: unknown, value: unknown): MapEntry {
  if (typeof key !== 'string' || key === '' || /\s/.test(key)) {
    throw new ApiError(400, 'map entry key must be a non-empty string without whitespace');
  }
  if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
    throw new ApiError(400, 'map entry value must be a string without line breaks');
  }
  return { key, value };
}

/** Atomically replaces all entries: prepare a new version, fill it in chunks, commit. */
export async function replaceRuntimeMap(
  admin: RuntimeSocket,
  file: string,
  entries: readonly MapEntry[],
): Promise<void> {
  const prepared = await admin.send(cliCommand('prepare', 'map', file));
  const ver = /New version created:\s*(\d+)/.exec(prepared)?.[1];
  if (!ver) throw new RuntimeCommandError(`prepare map ${file}`, prepared);
  const lines = entries.map((e) => (e.value === '' ? e.key : `${e.key} ${e.value}`));
  for (const message of chunkPayload(cliCommand('add', 'map', `@${ver}`, file), lines)) {
    await admin.expect(message);
  }
  await admin.expect(cliCommand('commit', 'map', `@${ver}`, file));
}

/** Absolute path of a file HAProxy refers to (relative names are relative to the config dir). */
export function resolveInDir(dir: string, file: string): string | undefined {
  const abs = isAbsolute(file) ? file : join(dir, file);
  const rel = relative(dir, abs);
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : abs;
}

/** Writes the runtime content of a map to its file, so a reload keeps it. */
export async function syncMapToDisk(
  admin: RuntimeSocket,
  dir: string,
  file: string,
): Promise<void> {
  const abs = resolveInDir(dir, file);
  if (!abs) return; // outside the agent's directory: not ours to write
  writeAtomic(abs, printMapFile(await runtimeMapEntries(admin, file)));
}
