import { SECTION_KEYWORDS } from './config-lines.js';

/** One section of a configuration: its keyword, name and line span [start, end). */
export interface ConfigSection {
  readonly type: string;
  readonly name: string;
  /** Index of the header line. */
  readonly start: number;
  /** Index one past the last line that belongs to the section. */
  readonly end: number;
}

/** Splits a configuration into sections (line-based; enough to locate backends and servers). */
export function parseSections(text: string): ConfigSection[] {
  const lines = text.split('\n');
  const sections: ConfigSection[] = [];
  let current: { type: string; name: string; start: number } | undefined;
  lines.forEach((raw, i) => {
    const words = raw.trim().split(/\s+/);
    const kw = words[0] ?? '';
    if (!/^\s/.test(raw) && SECTION_KEYWORDS.has(kw)) {
      if (current) sections.push({ ...current, end: i });
      current = { type: kw, name: words[1] ?? '', start: i };
    }
  });
  if (current) sections.push({ ...current, end: lines.length });
  return sections;
}

/** A `server` line of a backend: its name, address, port and remaining keywords. */
export interface ServerLine {
  readonly name: string;
  readonly address: string;
  readonly port: number | undefined;
  readonly params: readonly string[];
  readonly line: number;
}

/** Lists the `server` lines of a backend (or listen) section; undefined when there is no such section. */
export function backendServers(text: string, backend: string): ServerLine[] | undefined {
  const section = parseSections(text).find(
    (s) => (s.type === 'backend' || s.type === 'listen') && s.name === backend,
  );
  if (!section) return undefined;
  const lines = text.split('\n');
  const servers: ServerLine[] = [];
  for (let i = section.start + 1; i < section.end; i++) {
    const words = (lines[i] ?? '').trim().split(/\s+/);
    if (words[0] !== 'server' || words.length < 3) continue;
    const { address, port } = splitAddress(words[2] ?? '');
    servers.push({ name: words[1] ?? '', address, port, params: words.slice(3), line: i });
  }
  return servers;
}

/** Splits `ip:port`, `[v6]:port` or a bare address. */
export function splitAddress(value: string): { address: string; port: number | undefined } {
  const m = /^(\[[^\]]+\]|[^:]+|.*:.*(?=:\d+$)):(\d+)$/.exec(value);
  if (!m) return { address: value, port: undefined };
  return { address: (m[1] ?? '').replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

/** Formats an address and optional port for a server line. */
export function joinAddress(address: string, port: number | undefined): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}

/**
 * Replaces (or, with `line` undefined, deletes) the server `name` of `backend`; appends it at the
 * end of the section when it does not exist yet. Returns the new text, or undefined when the
 * backend does not exist.
 */
export function setServerLine(
  text: string,
  backend: string,
  name: string,
  line: string | undefined,
): string | undefined {
  const servers = backendServers(text, backend);
  if (!servers) return undefined;
  const lines = text.split('\n');
  const existing = servers.find((s) => s.name === name);
  if (existing) {
    if (line === undefined) lines.splice(existing.line, 1);
    else lines[existing.line] = `  ${line}`;
    return lines.join('\n');
  }
  if (line === undefined) return text;
  const section = parseSections(text).find(
    (s) => s.name === backend && (s.type === 'backend' || s.type === 'listen'),
  );
  let at = section ? section.end : lines.length;
  while (at > (section?.start ?? 0) + 1 && (lines[at - 1] ?? '').trim() === '') at--;
  lines.splice(at, 0, `  ${line}`);
  return lines.join('\n');
}
