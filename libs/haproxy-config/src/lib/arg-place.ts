import { argumentKind } from './arg-kinds.js';
import { lexWord, type ArgKind, type Quoting } from './word-meaning.js';

/** Where a value written after a line's beginning lands: the argument's kind and the quoting. */
export interface ArgPlace {
  /** The argument's kind; undefined when the table does not say. */
  readonly kind?: ArgKind;
  readonly quoting: Quoting;
  /** Inside the parentheses of a sample fetch or converter (arguments, not the expression). */
  readonly inSampleArgs: boolean;
  /** Inside a `#` comment: HAProxy reads nothing there. */
  readonly comment: boolean;
}

/** Marks text of a line the caller does not know (a template's other outputs). */
export const UNKNOWN_TEXT = '\uE000';

/** The text of a log-format word after its last unclosed `%[`, or undefined when none is open. */
function openExpression(text: string): string | undefined {
  const at = text.lastIndexOf('%[');
  if (at === -1 || text.indexOf(']', at) !== -1) return undefined;
  return text.slice(at + 2);
}

function parensOpen(text: string): boolean {
  let depth = 0;
  for (const c of text) depth += c === '(' ? 1 : c === ')' ? -1 : 0;
  return depth > 0;
}

/**
 * The place a value lands when written right after `prefix`, the beginning of a haproxy.cfg line
 * (from the line's start, or from a template tag when the line's start is not known): the
 * argument's kind by the one table (`argumentKind`), the quoting open there, and whether it is
 * inside a sample fetch's arguments (also a `%[…]` inside a log-format).
 */
export function argumentPlace(prefix: string): ArgPlace {
  const words: (string | undefined)[] = [];
  let partial = '';
  let quoting: Quoting = 'none';
  let i = 0;
  for (;;) {
    while (prefix[i] === ' ' || prefix[i] === '\t') i++;
    if (i >= prefix.length) break;
    if (prefix[i] === '#') return { quoting: 'none', inSampleArgs: false, comment: true };
    const w = lexWord(prefix, i);
    const known = !prefix.slice(i, w.end).includes(UNKNOWN_TEXT);
    if (w.end >= prefix.length) {
      partial = known ? w.text : UNKNOWN_TEXT;
      quoting = w.quote;
      break;
    }
    words.push(known ? w.text : undefined);
    i = w.end;
  }
  let kind = argumentKind(words);
  let inSampleArgs = false;
  if (kind === 'log-format') {
    const expr = openExpression(partial);
    if (expr !== undefined) {
      kind = 'sample';
      inSampleArgs = parensOpen(expr);
    }
  } else if (kind === 'sample') inSampleArgs = parensOpen(partial);
  return { ...(kind ? { kind } : {}), quoting, inSampleArgs, comment: false };
}
