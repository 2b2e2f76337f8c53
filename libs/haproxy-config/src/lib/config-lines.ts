/** One logical line of haproxy.cfg: its 1-based number, its section and its words. */
export interface ConfigLine {
  readonly line: number;
  /** Section keyword this line belongs to (`global`, `backend`, ...), or '' before any section. */
  readonly section: string;
  /** True for the line that opens a section. */
  readonly header: boolean;
  readonly words: readonly string[];
}

/**
 * Keywords that open a section in haproxy.cfg (2.6 and 3.x). The one table in haptic: the
 * section reader, the configuration model and validation all use it.
 */
export const SECTION_KEYWORDS: ReadonlySet<string> = new Set([
  'global',
  'defaults',
  'frontend',
  'backend',
  'listen',
  'resolvers',
  'peers',
  'userlist',
  'mailers',
  'program',
  'http-errors',
  'ring',
  'cache',
  'fcgi-app',
  'log-forward',
  'crt-store',
  'traces',
  'acme',
]);

/**
 * Splits one haproxy.cfg line into words the way HAProxy does for our purposes: whitespace
 * separates, single and double quotes group, backslash escapes, and an unquoted, unescaped `#`
 * ends the line wherever it stands — also inside a word (HAProxy reads `a#b c` as the word `a`
 * and a comment). Quote characters are removed; environment references are left as written.
 */
export function splitWords(text: string): string[] {
  // Fast path for the common line with no quotes, escapes or comments.
  if (!/["'\\#]/.test(text)) return text.split(/[ \t]+/).filter((w) => w.length > 0);
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) cur += text[++i] ?? '';
      else cur += c;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i] ?? '';
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else if (c === '#') {
      break;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** Every non-empty, non-comment line of a haproxy.cfg with its section. */
export function configLines(config: string): ConfigLine[] {
  const out: ConfigLine[] = [];
  let section = '';
  config.split('\n').forEach((raw, i) => {
    const words = splitWords(raw.replace(/\r$/, ''));
    const first = words[0];
    if (first === undefined) return;
    const header = SECTION_KEYWORDS.has(first);
    if (header) section = first;
    out.push({ line: i + 1, section, header, words });
  });
  return out;
}
