import { argumentKind, configLines, lexWord, wordMeaning, type ArgKind } from '#haproxy-config';
import type { RenderedOutputs } from '#render';

// The judge of meaning: a hostile render that keeps the twin's shape may still have changed what
// HAProxy does with a word (a `%[env(HOME)]` left live in a log-format argument, a `${HOME}`
// expanded inside double quotes). Each word that differs from the twin's is read as HAProxy
// reads it at its place (`wordMeaning` with the kind the one table, `argumentKind`, gives) and
// must be the twin's literal text with the hazard's literal text inserted, with no expansion
// the twin's word does not have.

/** The outputs HAProxy reads as text: haproxy.cfg, the maps and the crt-lists (by file). */
export type TextOutputs = Pick<RenderedOutputs, 'haproxyConfig' | 'maps' | 'crtLists'>;

/** One word of a haproxy.cfg line: as written, and the text of the words before it. */
interface RawWord {
  readonly raw: string;
  readonly before: readonly string[];
}

/** The words of one haproxy.cfg line as written (HAProxy's word rules; a `#` ends the line). */
export function rawWords(line: string): RawWord[] {
  const out: RawWord[] = [];
  const texts: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (i >= line.length || line[i] === '#') return out;
    const w = lexWord(line, i);
    if (w.end === i) return out; // nothing read (cannot happen past the checks above)
    out.push({ raw: line.slice(i, w.end), before: [...texts] });
    texts.push(w.text);
    i = w.end;
  }
}

/** The kind HAProxy reads a word with; words the table has no kind for are read strictly. */
function kindOf(before: readonly string[]): ArgKind | 'unknown' {
  return argumentKind(before) ?? 'unknown';
}

/**
 * HAProxy's reading of `raw` at a place of `kind`. Where the table knows no kind, the word is read
 * by the line rules and any `%` item or `$` reference in its text counts as live: a place whose
 * kind is not known must not receive either (as the escaper refuses them there).
 */
export function readWord(raw: string, kind: ArgKind | 'unknown'): { text: string; live: string[] } {
  if (kind !== 'unknown') {
    const m = wordMeaning(raw, kind);
    return { text: m.text, live: [...m.live] };
  }
  const m = wordMeaning(raw, 'word');
  const suspects = m.text.match(/%(\{[^}]*\})?(\[[^\]]*\]?|[A-Za-z_]\w*|%)?|\$\{?[A-Za-z_]\w*\}?/g);
  return { text: m.text, live: [...m.live, ...(suspects ?? [])] };
}

/** Whether `text` is `twin` with one of `inserted` put somewhere in it. */
export function isInsertion(text: string, twin: string, inserted: readonly string[]): boolean {
  return inserted.some((h) => {
    if (text.length !== twin.length + h.length) return false;
    for (let at = 0; at <= twin.length; at++) {
      if (text.startsWith(twin.slice(0, at)) && text.slice(at) === h + twin.slice(at)) return true;
    }
    return false;
  });
}

const show = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/** What is wrong with one differing word (undefined: it reads as the literal hostile value). */
function judgeWord(
  hostile: RawWord,
  twin: RawWord,
  inserted: readonly string[],
): string | undefined {
  const kind = kindOf(hostile.before);
  const h = readWord(hostile.raw, kind);
  const t = readWord(twin.raw, kindOf(twin.before));
  const added = h.live.filter((x) => !t.live.includes(x));
  const where = `${hostile.before.join(' ')} ▸${show(hostile.raw)} (${kind})`;
  if (added.length > 0 || h.live.length !== t.live.length)
    return `${where}: HAProxy would evaluate ${added.map(show).join(', ') || 'more than the twin'}`;
  if (!isInsertion(h.text, t.text, inserted))
    return `${where}: reads as ${show(h.text)}, not the twin's ${show(t.text)} with the literal value`;
  return undefined;
}

/** The raw text of haproxy.cfg's logical lines (those `configLines` reads), in order. */
function logicalLines(cfg: string): string[] {
  const raw = cfg.split('\n');
  return configLines(cfg).map((l) => (raw[l.line - 1] ?? '').replace(/\r$/, ''));
}

/** Differing haproxy.cfg words that do not read as the literal hostile value (same shape assumed). */
function cfgMeaning(hostile: string, twin: string, inserted: readonly string[]): string[] {
  const out: string[] = [];
  const [hs, ts] = [logicalLines(hostile), logicalLines(twin)];
  if (hs.length !== ts.length) return ['haproxy.cfg: not as many lines as the twin'];
  hs.forEach((line, n) => {
    const other = ts[n] ?? '';
    if (line === other) return;
    const [hw, tw] = [rawWords(line), rawWords(other)];
    if (hw.length !== tw.length) {
      out.push(`haproxy.cfg: ${show(line)} has not the twin's words`);
      return;
    }
    hw.forEach((w, k) => {
      const twinWord = tw[k];
      if (twinWord === undefined || w.raw === twinWord.raw) return;
      const wrong = judgeWord(w, twinWord, inserted);
      if (wrong !== undefined) out.push(`haproxy.cfg: ${wrong}`);
    });
  });
  return out;
}

/**
 * Differing lines of a map or crt-list (read literally by HAProxy, no quoting): each hostile line
 * the twin lacks must be a twin line the hostile lacks with the literal value inserted.
 */
function tableMeaning(
  what: string,
  hostile: string,
  twin: string,
  inserted: readonly string[],
): string[] {
  const lines = (s: string) => s.split('\n').filter((l) => l !== '');
  const [hs, ts] = [lines(hostile), lines(twin)];
  const onlyTwin = ts.filter((l) => !hs.includes(l));
  const out: string[] = [];
  for (const line of hs.filter((l) => !ts.includes(l))) {
    const k = onlyTwin.findIndex((t) => isInsertion(line, t, inserted));
    if (k === -1) out.push(`${what}: ${show(line)} is no twin line with the literal value`);
    else onlyTwin.splice(k, 1);
  }
  return out;
}

/**
 * Every word of the hostile outputs that differs from the twin's and does not read, by HAProxy's
 * rules for its place, as the twin's text with one of `inserted` in it, or that leaves an
 * expansion live. Call only on outputs of the twin's shape (`structuralDifferences` first).
 */
export function meaningDifferences(
  hostile: TextOutputs,
  twin: TextOutputs,
  inserted: readonly string[],
): string[] {
  const out = cfgMeaning(hostile.haproxyConfig, twin.haproxyConfig, inserted);
  for (const [what, h, t] of [
    ['map', hostile.maps, twin.maps],
    ['crt-list', hostile.crtLists, twin.crtLists],
  ] as const) {
    for (const [file, text] of Object.entries(h))
      out.push(...tableMeaning(`${what} ${file}`, text, t[file] ?? '', inserted));
  }
  return out;
}
