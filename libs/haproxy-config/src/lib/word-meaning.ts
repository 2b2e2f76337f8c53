// HAProxy's reading of one configuration word, and the writing of a literal value into one.
// The rules are the configuration manual's: §2.2 "Quoting and escaping" (backslash, weak `"` and
// strong `'` quoting; `\xHH`, `\t`, `\n`, `\r`; an unknown escape keeps its backslash), §2.3
// "Environment variables" (`$NAME` and `${NAME}` are expanded only inside double quotes; a `$`
// not followed by a name is an error there) and §8.2.6 "Custom log format" (`%%` is a literal
// `%`; `%[expr]`, `%{flags}…` and `%alias` are evaluated; any other `%` is refused). Each rule
// was checked against HAProxy 2.6 and 3.0 (test/e2e/haproxy/escaper-kinds.spec.ts).

/**
 * How HAProxy reads an argument once the line is split into words: `log-format` (§8.2.6), `regex`
 * (a PCRE pattern), `acl-pattern` (an ACL value, §7.1), `word` (a name, number or path read as
 * it stands) or `sample` (a sample expression, §7.3: fetch, arguments, converters).
 */
export type ArgKind = 'log-format' | 'regex' | 'acl-pattern' | 'word' | 'sample';

/** Where in a word a value is written: outside quotes, inside `"…"` or inside `'…'`. */
export type Quoting = 'none' | 'double' | 'single';

/** HAProxy's reading of a word. */
export interface WordMeaning {
  /** The text HAProxy ends up with; any live expansion is kept in it as written. */
  readonly text: string;
  /**
   * What HAProxy would still evaluate or refuse: `${NAME}`/`$NAME` in double quotes, an unclosed
   * quote, and in a log-format `%[…]`, `%{…}…`, `%alias` or a lone `%`. Empty for a literal.
   */
  readonly live: readonly string[];
  /** Index in the raw text just after the word (a space, a `#` comment or the end). */
  readonly end: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const HEX2 = /^[0-9A-Fa-f]{2}$/;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  ' ': ' ',
  '#': '#',
  '\\': '\\',
  "'": "'",
  '"': '"',
  t: '\t',
  n: '\n',
  r: '\r',
};

/** One backslash escape at `raw[i]` (the backslash): the text it stands for and its length. */
function escapeAt(raw: string, i: number, inDouble: boolean): [string, number] {
  const c = raw[i + 1];
  if (c === undefined) return ['\\', 1];
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) return [simple, 2];
  if (c === '$' && inDouble) return ['$', 2];
  const hex = raw.slice(i + 2, i + 4);
  if (c === 'x' && HEX2.test(hex)) return [String.fromCharCode(parseInt(hex, 16)), 4];
  return [`\\${c}`, 2]; // an unknown escape keeps its backslash (so does `\$` outside quotes)
}

/** An environment reference at `raw[i]` (the `$`, inside double quotes): as written and its length. */
function envAt(raw: string, i: number): string {
  if (raw[i + 1] === '{') {
    const close = raw.indexOf('}', i + 2);
    return close === -1 ? raw.slice(i) : raw.slice(i, close + 1);
  }
  const name = ENV_NAME.exec(raw.slice(i + 1));
  return `$${name ? name[0] : ''}`;
}

/** The first word of `raw` under the line rules (§2.2, §2.3), from `start`. */
export function readConfigWord(raw: string, start = 0): WordMeaning {
  const { text, live, end } = lexWord(raw, start);
  return { text, live, end };
}

/** A word as read, with the quoting open at its end (`none` when it ended). */
export function lexWord(raw: string, start = 0): WordMeaning & { readonly quote: Quoting } {
  let i = start;
  while (raw[i] === ' ' || raw[i] === '\t') i++;
  let text = '';
  const live: string[] = [];
  let quote: Quoting = 'none';
  for (; i < raw.length; i++) {
    const c = raw[i] as string;
    if (quote === 'single') {
      if (c === "'") quote = 'none';
      else text += c;
    } else if (c === '\\') {
      const [t, n] = escapeAt(raw, i, quote === 'double');
      text += t;
      i += n - 1;
    } else if (quote === 'double') {
      if (c === '"') quote = 'none';
      else if (c === '$') {
        const ref = envAt(raw, i);
        live.push(ref);
        text += ref;
        i += ref.length - 1;
      } else text += c;
    } else if (c === ' ' || c === '\t' || c === '#') break;
    else if (c === '"') quote = 'double';
    else if (c === "'") quote = 'single';
    else text += c;
  }
  if (quote !== 'none') live.push(quote === 'double' ? '"' : "'");
  return { text, live, end: i, quote };
}

/** The end of a `%[…]` expression at `s[i]` (the `[`): the index after its `]`, or -1. */
function closeBracket(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === '[') depth++;
    else if (s[j] === ']' && --depth === 0) return j + 1;
  }
  return -1;
}

/** The length of the log-format item at `s[i]` (the `%`), `%%` included. */
function logItemLength(s: string, i: number): number {
  let j = i + 1;
  if (s[j] === '%') return 2;
  if (s[j] === '{') {
    const close = s.indexOf('}', j);
    if (close === -1) return s.length - i;
    j = close + 1;
  }
  if (s[j] === '[') {
    const end = closeBracket(s, j);
    return (end === -1 ? s.length : end) - i;
  }
  const alias = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(j));
  return j - i + (alias ? alias[0].length : s[j] === undefined ? 0 : 1);
}

/** A log-format string's literal text (`%%` read as `%`) and the items HAProxy evaluates. */
export function readLogFormat(s: string): { text: string; live: string[] } {
  let text = '';
  const live: string[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '%') {
      text += s[i] as string;
      continue;
    }
    const n = logItemLength(s, i);
    if (n === 2 && s[i + 1] === '%') text += '%';
    else {
      live.push(s.slice(i, i + n));
      text += s.slice(i, i + n);
    }
    i += n - 1;
  }
  return { text, live };
}

/**
 * HAProxy's reading of the first word of `raw` as an argument of `kind`: the line rules, then
 * for `log-format` the log-format rules. A literal value reads back as itself with `live` empty.
 */
export function wordMeaning(raw: string, kind: ArgKind): WordMeaning {
  const word = readConfigWord(raw);
  if (kind !== 'log-format') return word;
  const lf = readLogFormat(word.text);
  return { text: lf.text, live: [...word.live, ...lf.live], end: word.end };
}

/** The outcome of writing a value: the text to print, or why it cannot be written literally. */
export type Written =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly reason: string };

/** Characters a sample-fetch argument cannot hold literally once written in a config word. */
const SAMPLE_ARG_UNSAFE = /[\s"'\\#(),[\]{}$%]/;

/**
 * `value` written at a place of `kind` (undefined: not known) and `quoting` so that HAProxy reads
 * it literally: `%` doubled in a log-format, `"`, `\`, `$` backslash-escaped inside double
 * quotes, `'` closed, escaped and reopened inside single quotes, space, `#`, quotes and `\`
 * backslash-escaped outside quotes. Refused: a value that would be a sample expression, a
 * sample-fetch argument holding a character of the expression syntax, and a `%` or `$` where the
 * kind is not known. Control characters are the caller's to refuse (no word can hold them).
 */
export function writeLiteral(
  value: string,
  kind: ArgKind | undefined,
  quoting: Quoting,
  inSampleArgs = false,
): Written {
  if (kind === 'sample') {
    if (!inSampleArgs) return { ok: false, reason: 'would be a sample expression, not a literal' };
    const bad = SAMPLE_ARG_UNSAFE.exec(value);
    if (bad)
      return {
        ok: false,
        reason: `holds ${JSON.stringify(bad[0])} inside a sample-fetch argument`,
      };
    return { ok: true, text: value };
  }
  if (kind === undefined) {
    const bad = /[%$]/.exec(value);
    if (bad)
      return {
        ok: false,
        reason: `holds ${JSON.stringify(bad[0])} where the argument's kind is not known`,
      };
  }
  const v = kind === 'log-format' ? value.replace(/%/g, '%%') : value;
  if (quoting === 'double') return { ok: true, text: v.replace(/["\\$]/g, '\\$&') };
  if (quoting === 'single') return { ok: true, text: v.replace(/'/g, "'\\''") };
  return { ok: true, text: v.replace(/[ "'\\#]/g, '\\$&') };
}
