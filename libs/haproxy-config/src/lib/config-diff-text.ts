import { SECTION_KEYWORDS, splitWords } from './config-lines.js';
import { diffConfig, type ConfigDiff } from './config-diff.js';
import { parseConfig, type ConfigSectionModel, type HaproxyConfigModel } from './config-model.js';

/** A section of a configuration text: keyword, name and its character span [start, end). */
interface TextSection {
  readonly type: string;
  readonly name: string;
  readonly start: number;
  end: number;
}

/** A plain first word at a line's start: letters first, then a blank or the line's end. */
const PLAIN_WORD = /[ \t]*([A-Za-z][\w.-]*)(?=[ \t]|\r?\n|\r?$)/y;

/**
 * The first word of the line [at, eol) as `splitWords` reads it ('' for blank and comment
 * lines), without copying the line when it starts with a plain word (almost every line).
 */
function firstWordAt(text: string, at: number, eol: number): string {
  PLAIN_WORD.lastIndex = at;
  const m = PLAIN_WORD.exec(text);
  if (m && PLAIN_WORD.lastIndex <= eol) return m[1] ?? '';
  return splitWords(lineAt(text, at, eol))[0] ?? '';
}

/** The line [at, eol) without its carriage return. */
const lineAt = (text: string, at: number, eol: number): string =>
  text.slice(at, eol).replace(/\r$/, '');

/**
 * Splits a text into sections as `parseConfig` does, keeping spans instead of directives. One
 * pass over the text that copies only section header lines: at 10,000 backends (2 MB) a copy of
 * every line was most of a runtime change's diff.
 */
function textSections(text: string): TextSection[] {
  const sections: TextSection[] = [];
  let current: TextSection | undefined;
  for (let at = 0; at < text.length;) {
    const nl = text.indexOf('\n', at);
    const eol = nl === -1 ? text.length : nl;
    const end = nl === -1 ? text.length : nl + 1;
    const first = firstWordAt(text, at, eol);
    if (SECTION_KEYWORDS.has(first)) {
      if (current) current.end = at;
      const name = splitWords(lineAt(text, at, eol))
        .slice(1)
        .join(' ');
      current = { type: first, name, start: at, end };
      sections.push(current);
    } else if (first !== '' && !current) {
      current = { type: '', name: '', start: at, end };
      sections.push(current);
    }
    if (current) current.end = end;
    at = end;
  }
  return sections;
}

/** Keys as diffConfig numbers them: a repeated section by occurrence. */
function keysOf(sections: readonly TextSection[]): string[] {
  const seen = new Map<string, number>();
  return sections.map((s) => {
    const k = `${s.type} ${s.name}`.trim();
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return n === 1 ? k : `${k} #${n}`;
  });
}

/**
 * Sections whose directives the diff reads even when unchanged: `defaults` (the scope of every
 * backend's balance and default-server) and any naming a server elsewhere (`track`, `use-server`).
 */
const alwaysParsed = (s: TextSection, body: string): boolean =>
  s.type === 'defaults' || body.includes('track') || body.includes('use-server');

function modelOf(
  text: string,
  sections: readonly TextSection[],
  unchanged: ReadonlySet<number>,
): HaproxyConfigModel {
  return {
    sections: sections.map((s, i): ConfigSectionModel => {
      const body = text.slice(s.start, s.end);
      if (unchanged.has(i) && !alwaysParsed(s, body))
        return { type: s.type, name: s.name, directives: [] };
      return parseConfig(body).sections[0] ?? { type: s.type, name: s.name, directives: [] };
    }),
  };
}

/**
 * `diffConfig(parseConfig(from), parseConfig(to))` without parsing what did not change: a
 * section whose text is the same in both (same key, same characters) has the same directives,
 * so both sides stand in with none, except the sections the diff reads for others. At 10,000
 * backends a change parses a few sections instead of two whole models (about 30 MiB of words).
 */
export function diffConfigText(from: string, to: string): ConfigDiff {
  // validation (the render over the one in force) and the deployment's plan (the pod's copy,
  // that same render, over the new one) ask for the same pair, one after the other
  if (last && last.from === from && last.to === to) return last.diff;
  const diff = diffSections(from, to);
  last = { from, to, diff };
  return diff;
}

/** The last pair diffed and its result (a diff is pure: the same texts, the same result). */
let last: { readonly from: string; readonly to: string; readonly diff: ConfigDiff } | undefined;

/**
 * The sections of the last texts split: a change's `to` is the next change's `from` (the render
 * in force, then the pod's copy of it), so each text is split once, not twice.
 */
const split: { text: string; sections: TextSection[] }[] = [];

function sectionsOf(text: string): TextSection[] {
  const known = split.find((s) => s.text === text);
  if (known) return known.sections;
  const sections = textSections(text);
  split.unshift({ text, sections });
  split.length = Math.min(split.length, 2);
  return sections;
}

function diffSections(from: string, to: string): ConfigDiff {
  const a = sectionsOf(from);
  const b = sectionsOf(to);
  const aKeys = keysOf(a);
  const bIndex = new Map(keysOf(b).map((k, i) => [k, i]));
  const sameA = new Set<number>();
  const sameB = new Set<number>();
  for (const [i, k] of aKeys.entries()) {
    const j = bIndex.get(k);
    if (j === undefined) continue;
    const sa = a[i]!;
    const sb = b[j]!;
    if (sa.end - sa.start !== sb.end - sb.start) continue;
    if (from.slice(sa.start, sa.end) !== to.slice(sb.start, sb.end)) continue;
    sameA.add(i);
    sameB.add(j);
  }
  return diffConfig(modelOf(from, a, sameA), modelOf(to, b, sameB));
}
