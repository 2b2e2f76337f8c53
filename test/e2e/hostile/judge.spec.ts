import { describe, expect, it } from 'vitest';
import { meaningDifferences, readWord, type TextOutputs } from '../../hostile/meaning.js';

// The corpus's judge of meaning, on outputs written by hand: it must call an injection what
// HAProxy would evaluate, even where the line keeps its words (issue 38's reproducer, rendered
// before the escaper knew argument kinds), and accept what HAProxy reads literally.

const FRONTEND = 'frontend http\n  bind :80\n';
const cfg = (line: string): TextOutputs => ({
  haproxyConfig: `${FRONTEND}  ${line}\n`,
  maps: { 'prefix.map': 'h1.example.com/ be_1\n' },
  crtLists: {},
});
const COND = 'if { req.hdr(host),field(1,:),lower -m str h1.example.com }';
const tagged = (value: string) => cfg(`http-request set-header X-Route-Tag ${value} ${COND}`);
const twin = tagged('ok');

describe("the hostile corpus's judge of meaning", () => {
  it('calls the unescaped reproducer an injection: ok%[env(HOME)] in a set-header value', () => {
    const diffs = meaningDifferences(tagged('ok%[env(HOME)]'), twin, ['%[env(HOME)]']);
    expect(diffs).toHaveLength(1);
    expect(diffs[0]).toContain('HAProxy would evaluate "%[env(HOME)]"');
  });

  it('calls every member of the expansion family an injection when written as it stands', () => {
    const live: [string, string][] = [
      ['%[req.hdr(cookie)]', '%[req.hdr(cookie)]'],
      ['%{+Q}[env(PATH)]', '%{+Q}[env(PATH)]'],
      ['%[src,lower]', '%[src,lower]'],
      ['%ci', '%ci'],
      ['"${HOME}"', '${HOME}'],
      ['"$HOME"', '$HOME'],
    ];
    for (const [hazard, evaluated] of live) {
      const diffs = meaningDifferences(tagged(`o${hazard}k`), twin, [hazard]);
      expect([hazard, diffs.join('')]).toEqual([hazard, expect.stringContaining(evaluated)]);
    }
  });

  it('accepts what HAProxy reads as the literal value', () => {
    const literal: [string, string][] = [
      ['o%%[env(HOME)]k', '%[env(HOME)]'], // %% is a literal % in a log-format
      ['"o%%{+Q}[env(PATH)]k"', '%{+Q}[env(PATH)]'],
      ['o${HOME}k', '${HOME}'], // no expansion outside double quotes
      ['"o\\${HOME}k"', '${HOME}'],
      ['o\\"\\${HOME}\\"k', '"\\${HOME}"'], // \" outside quotes is ", \$ keeps its backslash
      ['\'o"${HOME}"k\'', '"${HOME}"'], // nothing is expanded inside single quotes
      ['o\\ \\#xk', ' #x'],
    ];
    for (const [written, hazard] of literal)
      expect([written, meaningDifferences(tagged(written), twin, [hazard])]).toEqual([written, []]);
  });

  it('refuses a word that reads as something else than the twin with the value inserted', () => {
    const dropped = meaningDifferences(tagged('o[env(HOME)]k'), twin, ['%[env(HOME)]']);
    expect(dropped.join('')).toContain('reads as "o[env(HOME)]k"');
    const map: TextOutputs = { ...twin, maps: { 'prefix.map': 'h1.example.com/ be_evil\n' } };
    expect(meaningDifferences(map, twin, ['%']).join('')).toContain('map prefix.map');
  });

  it('reads a place the table has no kind for strictly: a % or $ there counts as live', () => {
    expect(readWord('o%[env(HOME)]k', 'unknown').live).toEqual(['%[env(HOME)]']);
    expect(readWord('o$HOMEk', 'unknown').live).toEqual(['$HOMEk']);
    expect(readWord('ok', 'unknown').live).toEqual([]);
  });
});
