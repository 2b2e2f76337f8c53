/** One crt-list line: `file [ssl options] sni filters...` (`ssl_crt_list_entry`). */
export interface CrtListEntry {
  file: string;
  ssl_bind_config?: string;
  sni_filter?: string[];
  line_number: number;
}

/** Parses a crt-list file (1-based line numbers, comments and blank lines skipped). */
export function parseCrtList(text: string): CrtListEntry[] {
  const entries: CrtListEntry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^(\S+)(?:\s+\[([^\]]*)\])?(?:\s+(.*))?$/.exec(line);
    if (!m) return;
    const entry: CrtListEntry = { file: m[1] ?? '', line_number: i + 1 };
    if (m[2] !== undefined && m[2].trim() !== '') entry.ssl_bind_config = m[2].trim();
    const sni = (m[3] ?? '').trim();
    if (sni !== '') entry.sni_filter = sni.split(/\s+/);
    entries.push(entry);
  });
  return entries;
}

/** Prints one crt-list line. */
export function crtListLine(e: {
  file: string;
  ssl_bind_config?: string;
  sni_filter?: readonly string[];
}): string {
  const parts = [e.file];
  if (e.ssl_bind_config) parts.push(`[${e.ssl_bind_config}]`);
  if (e.sni_filter?.length) parts.push(...e.sni_filter);
  return parts.join(' ');
}
