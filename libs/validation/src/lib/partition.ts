/**
 * A large haproxy.cfg checked in parts, so that one `haproxy -c` holds a bounded share of it.
 *
 * `haproxy -c` keeps every proxy and server of the file in memory (about 9 KiB a backend and
 * 4.4 KiB a server line on 3.0), so a check of 10,000 backends needs about 300 MiB — more than
 * the controller itself. A backend that nothing else names and that names no other proxy is
 * checked the same whether it is parsed with the rest of the file or beside only the sections it
 * can see (global, defaults, userlists, peers, resolvers, ...): such backends are moved into
 * batches, each checked with those sections, in their original order (so every backend keeps the
 * `defaults` section before it). Part 1 is the file without the moved backends, frontends and
 * every backend something refers to included, checked as the whole file would be.
 */

/** One `haproxy -c` run of a partitioned check. */
export interface CheckPart {
  /** The text to check. */
  readonly text: string;
  /** For each line of `text` (0-based), its 1-based line number in the whole file. */
  readonly lines: readonly number[];
  /** False for batches of moved backends: they hold no listener, by construction. */
  readonly listeners: boolean;
  /** Backends moved into this part (0 for part 1). */
  readonly movedBackends: number;
}

/** Section keywords of HAProxy 2.6–3.x: the first word of a line that starts a section. */
const SECTIONS = new Set([
  'global',
  'defaults',
  'frontend',
  'backend',
  'listen',
  'userlist',
  'peers',
  'resolvers',
  'mailers',
  'http-errors',
  'ring',
  'cache',
  'program',
  'log-forward',
  'fcgi-app',
  'crt-store',
  'traces',
  'acme',
]);

/** Sections that are proxies (named by other sections' rules); only backends are ever moved. */
const PROXIES = new Set(['frontend', 'backend', 'listen', 'log-forward']);

/** Characters of a proxy name; anything else separates the words a rule may name one with. */
const WORD_SPLIT = /[^A-Za-z0-9_.:-]+/;
const PROXY_NAME = /^[A-Za-z0-9_.:-]+$/;

interface Section {
  readonly kind: string;
  readonly name: string;
  /** First and one-past-last line index. */
  readonly start: number;
  end: number;
  servers: number;
}

/** First word of a line, or '' for blank and comment lines. */
function firstWord(line: string): string {
  const m = /^\s*([^\s#]\S*)/.exec(line);
  return m?.[1] ?? '';
}

/** Servers a `server`/`server-template` line declares. */
function serversOf(line: string, word: string): number {
  if (word === 'server') return 1;
  if (word !== 'server-template') return 0;
  const range = /^\s*server-template\s+\S+\s+(?:(\d+)-)?(\d+)\s/.exec(line);
  if (!range?.[2]) return 1;
  const to = Number(range[2]);
  const from = range[1] === undefined ? 1 : Number(range[1]);
  return Math.max(1, to - from + 1);
}

/** Splits the file into sections; undefined when it uses constructs parts cannot keep (`.if`). */
function sectionsOf(lines: readonly string[]): Section[] | undefined {
  const sections: Section[] = [];
  let current: Section | undefined;
  for (let i = 0; i < lines.length; i++) {
    const word = firstWord(lines[i] ?? '');
    if (word.startsWith('.')) return undefined; // conditional blocks and .diag/.notice directives
    if (SECTIONS.has(word)) {
      if (current) current.end = i;
      const name = /^\s*\S+\s+(\S+)/.exec(lines[i] ?? '')?.[1] ?? '';
      current = { kind: word, name, start: i, end: lines.length, servers: 0 };
      sections.push(current);
    } else if (current?.kind === 'backend') {
      current.servers += serversOf(lines[i] ?? '', word);
    }
  }
  return sections;
}

/**
 * The backends that can be checked apart: named only by their own header, naming no other
 * proxy, with a plain name that no other proxy shares.
 */
function movableBackends(lines: readonly string[], sections: readonly Section[]): Set<Section> {
  const proxyNames = new Map<string, number>();
  for (const s of sections)
    if (PROXIES.has(s.kind)) proxyNames.set(s.name, (proxyNames.get(s.name) ?? 0) + 1);
  const mentions = new Map<string, number>();
  const pinned = new Set<Section>();
  for (const s of sections) {
    for (let i = s.start; i < s.end; i++) {
      const own = i === s.start;
      for (const w of (lines[i] ?? '').split(WORD_SPLIT)) {
        if (!proxyNames.has(w)) continue;
        mentions.set(w, (mentions.get(w) ?? 0) + 1);
        // A backend naming any proxy (itself included, beyond its header) stays with part 1.
        if (s.kind === 'backend' && !(own && w === s.name)) pinned.add(s);
      }
    }
  }
  const movable = new Set<Section>();
  for (const s of sections) {
    if (s.kind !== 'backend' || pinned.has(s) || !PROXY_NAME.test(s.name)) continue;
    if (proxyNames.get(s.name) === 1 && mentions.get(s.name) === 1) movable.add(s);
  }
  return movable;
}

function partOf(
  lines: readonly string[],
  sections: readonly Section[],
  keep: (s: Section) => boolean,
  [listeners, movedBackends, eol]: readonly [boolean, number, string],
): CheckPart {
  const text: string[] = [];
  const numbers: number[] = [];
  const head = sections[0]?.start ?? lines.length;
  for (let i = 0; i < head; i++) {
    text.push(lines[i] ?? '');
    numbers.push(i + 1);
  }
  for (const s of sections) {
    if (!keep(s)) continue;
    for (let i = s.start; i < s.end; i++) {
      text.push(lines[i] ?? '');
      numbers.push(i + 1);
    }
  }
  return { text: text.join('\n') + eol, lines: numbers, listeners, movedBackends };
}

/**
 * Splits `config` into parts of at most `maxServers` server lines of moved backends each (a
 * backend without servers counts as one; a backend is never split). Undefined when one run is
 * enough or the file cannot be split safely; `maxServers` 0 never splits.
 */
export function partitionConfig(config: string, maxServers: number): CheckPart[] | undefined {
  if (maxServers <= 0) return undefined;
  const eol = config.endsWith('\n') ? '\n' : '';
  const lines = (eol ? config.slice(0, -1) : config).split('\n');
  const sections = sectionsOf(lines);
  if (!sections) return undefined;
  const weight = (s: Section): number => Math.max(1, s.servers);
  let total = 0;
  for (const s of sections) if (s.kind === 'backend') total += weight(s);
  if (total <= maxServers) return undefined;
  const movable = movableBackends(lines, sections);
  if (movable.size === 0) return undefined;

  const batches: Set<Section>[] = [];
  let batch = new Set<Section>();
  let size = 0;
  for (const s of sections) {
    if (!movable.has(s)) continue;
    if (batch.size > 0 && size + weight(s) > maxServers) {
      batches.push(batch);
      batch = new Set();
      size = 0;
    }
    batch.add(s);
    size += weight(s);
  }
  if (batch.size > 0) batches.push(batch);

  const parts = [partOf(lines, sections, (s) => !movable.has(s), [true, 0, eol])];
  for (const b of batches)
    parts.push(
      partOf(lines, sections, (s) => b.has(s) || !PROXIES.has(s.kind), [false, b.size, eol]),
    );
  return parts;
}

/** HAProxy's verdict on a part without listeners that parsed cleanly (exit code 2). */
const NO_LISTENER = /has no error but will not start \(no listener\)/;

/** Whether a part's run passed: exit 0, or for a part without listeners the clean exit 2. */
export function partPassed(part: CheckPart, exitCode: number | null, output: string): boolean {
  if (exitCode === 0) return true;
  return !part.listeners && exitCode === 2 && NO_LISTENER.test(output) && !/\[ALERT\]/.test(output);
}

/** Rewrites `<partPath>:<n>` in checker output to `<wholePath>:<line of the whole file>`. */
export function toWholeLines(
  output: string,
  part: CheckPart,
  partPath: string,
  wholePath: string,
): string {
  const re = new RegExp(`${partPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+)`, 'g');
  return output.replace(re, (_m, n: string) => {
    const line = part.lines[Number(n) - 1];
    return `${wholePath}:${line ?? n}`;
  });
}
