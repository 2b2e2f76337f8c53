import { toValue, type Context } from 'liquidjs';
import { writeLiteral, type ArgPlace } from '#haproxy-config';
import { QuotedWord } from './quoted-word.js';
import { placeOf } from './places.js';
import { TemplateValueError, attributeValue, type Explains } from './provenance.js';
import type { ObjectRef } from './types.js';
import { WORD_SPECIAL, untrustedSource } from './untrusted.js';

/** Characters no `{{ }}` output may put into haproxy.cfg or a map file. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const FORBIDDEN_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

const CHAR_NAMES: Readonly<Record<string, string>> = {
  '\n': 'a newline (\\n)',
  '\r': 'a carriage return (\\r)',
  '\u0000': 'a NUL byte',
  '\t': 'a tab',
};

/** One edit of `OutputLines.spliced`: `line` inserted before the line at `at`, or (no `line`) that line removed. */
export interface LineEdit {
  readonly at: number;
  readonly line?: string;
}

/**
 * Lines a typed filter composed (`server_lines`, `map_lines`): printed as
 * `separator + line + terminator` each. The
 * escaper checks every line as it checks one `{{ }}` value, so the only line breaks are the
 * filter's separators: a value inside a line can never start a new one. The lines are never
 * changed once given, so the printed text and the escaper's verdict are kept on the object: the
 * same object printed again (a filter's output kept across renders) costs nothing.
 */
export class OutputLines {
  private text: string | undefined;
  /** Whether no line holds a forbidden character, once known. */
  private verdict: boolean | undefined;
  /** Lines spliced from safe ones: safe when the lines added are (checked alone, once). */
  private added: readonly string[] | undefined;

  constructor(
    readonly lines: readonly string[],
    /** Printed before each line. */
    readonly separator: string,
    /** Printed after each line. */
    readonly terminator = '',
  ) {}

  toString(): string {
    if (this.text !== undefined) return this.text;
    // one join (a flat string), not a concatenation per line
    if (this.lines.length === 0) return (this.text = '');
    const { separator, terminator } = this;
    return (this.text = separator + this.lines.join(terminator + separator) + terminator);
  }

  /** Whether no line holds a forbidden character (judged once per object). */
  linesAreSafe(): boolean {
    if (this.verdict !== undefined) return this.verdict;
    const added = this.added;
    this.added = undefined;
    // (an unsafe line added may have been removed again: then judged on the whole text)
    const verdict =
      (added !== undefined && !added.some((l) => FORBIDDEN_CHARS.test(l))) ||
      framedLinesAreSafe(this, this.toString());
    this.verdict = verdict;
    return verdict;
  }

  /**
   * These lines after `edits` (applied in order, each `at` an index of the lines as edited so
   * far), with the same framing. The text is cut from this one's, not joined again, and when
   * these lines are known safe only the inserted lines are checked: no line is checked or
   * printed again. It is still linear in the lines, once per call and per edit: the lines are
   * copied, each edit's offset is summed from the lines before it, and the new text is one
   * flat copy (about 1 MB for a 10,000-Ingress route table, well under a millisecond). Meant
   * for the few edits of a one-object change; many edits are better served by a new
   * `OutputLines`.
   */
  spliced(edits: readonly LineEdit[]): OutputLines {
    const lines = [...this.lines];
    const frame = this.separator.length + this.terminator.length;
    // The text as pieces of whole lines (slices of this one's text, inserted lines), joined
    // once at the end: one flat string, one copy.
    const pieces = [this.toString()];
    const added: string[] = [];
    for (const e of edits) {
      if (e.at < 0 || e.at > lines.length - (e.line === undefined ? 1 : 0))
        throw new RangeError(`OutputLines.spliced: no line ${e.at} of ${lines.length}`);
      let offset = 0;
      for (let i = 0; i < e.at; i++) offset += (lines[i] as string).length + frame;
      // the piece the line starts in, and where in it (pieces are whole lines: it ends there)
      let p = 0;
      while (p < pieces.length && offset >= (pieces[p] as string).length)
        offset -= (pieces[p++] as string).length;
      const piece = pieces[p] ?? '';
      const before = piece.slice(0, offset);
      if (e.line === undefined) {
        const [gone] = lines.splice(e.at, 1);
        const after = piece.slice(offset + (gone as string).length + frame);
        pieces.splice(p, 1, ...[before, after].filter((t) => t !== ''));
      } else {
        lines.splice(e.at, 0, e.line);
        added.push(e.line);
        const printed = this.separator + e.line + this.terminator;
        pieces.splice(p, 1, ...[before, printed, piece.slice(offset)].filter((t) => t !== ''));
      }
    }
    const text = pieces.join('');
    const out = new OutputLines(lines, this.separator, this.terminator);
    out.text = text;
    if (this.verdict === true) out.added = added;
    return out;
  }
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Whether no line of `lines` holds a forbidden character, judged on the printed `text` at once:
 * no forbidden character but newlines anywhere, and exactly as many newlines as the framing
 * (separator and terminator) prints, so none is inside a line. Cheaper than testing 20,000 lines
 * one by one; when it says no, the lines are tested one by one to name the culprit.
 */
export function framedLinesAreSafe(lines: OutputLines, text: string): boolean {
  const framing = lines.separator + lines.terminator;
  if (FORBIDDEN_BUT_NEWLINE.test(framing) || FORBIDDEN_BUT_NEWLINE.test(text)) return false;
  return newlines(text) === lines.lines.length * newlines(framing);
}

/** Several `OutputLines` printed one after the other, each checked as it is on its own. */
export class OutputSections {
  constructor(readonly parts: readonly OutputLines[]) {}

  toString(): string {
    let out = '';
    for (const part of this.parts) out += part.toString();
    return out;
  }
}

/** Liquid's own stringification of an output value. */
export function outputText(value: unknown): string {
  const v: unknown = toValue(value);
  if (typeof v === 'string') return v;
  if (v instanceof OutputLines || v instanceof OutputSections) return v.toString();
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(outputText).join('');
  // Same as Liquid's own output of a non-string value.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  return String(v);
}

/** Names a control character for a message. */
export function charName(c: string): string {
  return CHAR_NAMES[c] ?? `control character U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A short, printable rendering of a refused value. */
export function preview(text: string): string {
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  return shown;
}

function explainsUnsafe(value: string, at: number): Explains {
  const fragment = value.slice(Math.max(0, at - 3), at + 4).toLowerCase();
  return (leaf) =>
    FORBIDDEN_CHARS.test(leaf) &&
    (value.includes(leaf) || leaf.includes(value) || leaf.toLowerCase().includes(fragment));
}

/** A refusal of `text` at this output, attributed to the object it came from. */
function refuse(ctx: Context, text: string, object: ObjectRef | undefined, why: string): never {
  const message = `output refused: ${preview(text)} ${why}`;
  throw TemplateValueError.at(ctx, 'unsafe-output', message, object);
}

function kindName(place: ArgPlace): string {
  return place.kind === undefined ? 'an argument of unknown kind' : `a ${place.kind} argument`;
}

/** A filter's word at `place`: written for the argument's kind there (see `QuotedWord`). */
function placedWord(ctx: Context, word: QuotedWord, place: ArgPlace | undefined): string {
  const plain = word.toString();
  if (place === undefined || place.comment || (place.kind === undefined && !word.kind)) {
    // the kind is not known: the filter's own text, unless an untrusted `%` might be live
    if (word.kind === undefined && word.value.includes('%')) {
      const source = untrustedSource(ctx, word.value);
      if (source)
        refuse(ctx, word.value, source.object, 'holds "%" in an argument of unknown kind');
    }
    return plain;
  }
  if (place.kind === 'sample') return plain;
  const written = word.writtenFor(place.kind, place.quoting);
  if (written === undefined)
    refuse(
      ctx,
      word.value,
      untrustedSource(ctx, word.value)?.object,
      `cannot be written literally in ${kindName(place)}`,
    );
  return written;
}

/** Whether the untrusted `leaf` inside a composed value would be live at `place`. */
function liveInside(leaf: string, place: ArgPlace | undefined): boolean {
  if (place === undefined || place.kind === undefined || place.kind === 'sample') return true;
  return (
    (place.kind === 'log-format' && leaf.includes('%')) ||
    (place.quoting === 'double' && leaf.includes('$'))
  );
}

/**
 * An untrusted text at `place`: written so that HAProxy reads it literally (`#haproxy-config`
 * `writeLiteral`), or refused. A text composed by the template around an untrusted `%`/`$` is
 * refused where that character would be live: which parts are the operator's is not known.
 */
function escapeUntrusted(ctx: Context, text: string, place: ArgPlace | undefined): string {
  const source = untrustedSource(ctx, text);
  if (!source) return text;
  if (!source.exact) {
    if (!liveInside(source.leaf, place)) return text;
    refuse(
      ctx,
      text,
      source.object,
      `holds ${preview(source.leaf)} from a watched object where "%"/"$" would be evaluated; pass the field itself through the escaper or a typed filter`,
    );
  }
  const p = place ?? { quoting: 'none' as const, inSampleArgs: false, comment: false };
  const written = writeLiteral(text, p.kind, p.quoting, p.inSampleArgs);
  if (!written.ok) refuse(ctx, text, source.object, `${written.reason} (${kindName(p)})`);
  return written.text;
}

/**
 * A whole configuration line a typed filter composed and vetted (a backend snippet line the
 * operator allowed, a timeout line): only control characters are refused, since they could add
 * a line; its words are the filter's, not one argument of unknown kind.
 */
export function escapeLine(this: { context: Context }, value: unknown): string {
  const text = outputText(toValue(value));
  const bad = FORBIDDEN_CHARS.exec(text);
  if (bad) {
    const object = attributeValue(this.context, explainsUnsafe(text, bad.index));
    refuse(this.context, text, object, `contains ${charName(bad[0])}`);
  }
  return text;
}

/**
 * The output escaper of haproxy.cfg and map templates: refuses control characters (they could add
 * a line or a directive) and names the watched object the value came from. In haproxy.cfg, a
 * value from a watched object that holds a character HAProxy would read specially is written so
 * that HAProxy reads it literally for the argument's kind where the `{{ }}` stands (found when
 * the template was compiled), or refused; a typed filter's word is written for that kind too.
 */
export function escapeOutput(this: { context: Context; token?: unknown }, value: unknown): string {
  const v: unknown = toValue(value);
  if (v instanceof OutputLines) {
    const text = v.toString();
    if (v.linesAreSafe()) return text;
    for (const line of v.lines) if (FORBIDDEN_CHARS.test(line)) escapeOutput.call(this, line);
    return text;
  }
  if (v instanceof OutputSections) {
    let out = '';
    for (const part of v.parts) out += escapeOutput.call(this, part);
    return out;
  }
  const text = escapeLine.call(this, v);
  const place = placeOf(this.token);
  if (place === 'map') return text;
  if (v instanceof QuotedWord) return placedWord(this.context, v, place);
  // The fast path: most values hold no character HAProxy reads specially.
  if (!WORD_SPECIAL.test(text) || place?.comment) return text;
  return escapeUntrusted(this.context, text, place);
}
