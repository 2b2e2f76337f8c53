import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_CHARS, OutputLines, framedLinesAreSafe } from './escaper.js';

const piece = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.constantFrom('\n', '\r', '\t', '\u0000', '\u0085', ' ', 'a b', '#'),
);
const line = fc.array(piece, { maxLength: 4 }).map((ps) => ps.join(''));
const framing = fc.constantFrom('', '\n', '\n  ', ' ', '\n\n', '\r\n', '\t');

describe('framedLinesAreSafe', () => {
  it('says safe exactly when no line holds a forbidden character (framing without one but newlines)', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), framing, framing, (ls, sep, term) => {
        const lines = new OutputLines(ls, sep, term);
        const safe = framedLinesAreSafe(lines, lines.toString());
        if (safe) expect(ls.some((l) => FORBIDDEN_CHARS.test(l))).toBe(false);
        if (!/[\r\t]/.test(sep + term)) expect(safe).toBe(!ls.some((l) => FORBIDDEN_CHARS.test(l)));
      }),
      { numRuns: 3000 },
    );
  });

  it('catches a line that carries its own newline', () => {
    const lines = new OutputLines(['a b', 'c d\nlua-load x', 'e f'], '', '\n');
    expect(framedLinesAreSafe(lines, lines.toString())).toBe(false);
  });
});
