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

describe('OutputLines.spliced', () => {
  const edit = fc.record({ at: fc.nat({ max: 8 }), line: fc.option(line, { nil: undefined }) });

  it('prints and judges as the edited lines made afresh would', () => {
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 6 }),
        framing,
        framing,
        fc.array(edit, { maxLength: 4 }),
        fc.boolean(),
        (ls, sep, term, raw, judged) => {
          const base = new OutputLines(ls, sep, term);
          // the base's verdict known or not: a spliced one must judge the same either way
          if (judged) base.linesAreSafe();
          const edited = [...ls];
          const edits = [];
          for (const e of raw) {
            const at = Math.min(e.at, edited.length - (e.line === undefined ? 1 : 0));
            if (at < 0) continue;
            if (e.line === undefined) edited.splice(at, 1);
            else edited.splice(at, 0, e.line);
            edits.push(e.line === undefined ? { at } : { at, line: e.line });
          }
          const spliced = base.spliced(edits);
          const fresh = new OutputLines(edited, sep, term);
          expect(spliced.lines).toEqual(edited);
          expect(spliced.toString()).toBe(fresh.toString());
          // safe exactly when no line holds a forbidden character (the framing is the filter's)
          if (spliced.linesAreSafe())
            expect(edited.some((l) => FORBIDDEN_CHARS.test(l))).toBe(false);
          if (!/[\r\t]/.test(sep + term))
            expect(spliced.linesAreSafe()).toBe(!edited.some((l) => FORBIDDEN_CHARS.test(l)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses an edit past the lines', () => {
    expect(() => new OutputLines(['a'], '', '\n').spliced([{ at: 1 }])).toThrow(RangeError);
  });
});
