/** One map entry: the key is the first word of a line, the value the rest. */
export interface MapEntry {
  readonly key: string;
  readonly value: string;
}

/** Parses a map file (comments and blank lines skipped), in file order. */
export function parseMapFile(text: string): MapEntry[] {
  const entries: MapEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(\S+)(?:\s+(.*))?$/.exec(line);
    if (m) entries.push({ key: m[1] ?? '', value: (m[2] ?? '').trim() });
  }
  return entries;
}

/** Prints entries as a map file, one `key value` line each. */
export function printMapFile(entries: readonly MapEntry[]): string {
  return (
    entries.map((e) => (e.value === '' ? e.key : `${e.key} ${e.value}`)).join('\n') +
    (entries.length ? '\n' : '')
  );
}
