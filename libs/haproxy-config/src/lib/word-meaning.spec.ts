import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIRECTIVE_ARGS, argumentKind } from './arg-kinds.js';
import { argumentPlace } from './arg-place.js';
import {
  readLogFormat,
  wordMeaning,
  writeLiteral,
  type ArgKind,
  type Quoting,
} from './word-meaning.js';

/** The expansion family and HAProxy's word syntax, as an untrusted object might carry them. */
export const HOSTILE_VALUES = [
  'ok%[env(HOME)]',
  '%[req.hdr(cookie)]',
  '%{+Q}[env(PATH)]',
  '${HOME}',
  '$HOME',
  '%ci:%cp',
  '%%',
  '%',
  '50%',
  'a"b',
  "a'b",
  'a\\b',
  'a\\x41',
  '\\"',
  'x # y',
  'a b',
  '$',
  '${',
  "'\\''",
  '%[str(a)]%{Q}o',
  'back\\ slash$ "q" #c %s',
];

const piece = fc.constantFrom(
  '%',
  '$',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '"',
  "'",
  '\\',
  '#',
  ' ',
  'a',
  'HOME',
  'x41',
  ',',
  'ci',
);
const hostile = fc.oneof(
  fc.constantFrom(...HOSTILE_VALUES),
  fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
  // eslint-disable-next-line no-control-regex -- no word holds a control character (refused before)
  fc.string({ maxLength: 12 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s)),
);
const KINDS: ArgKind[] = ['log-format', 'regex', 'acl-pattern', 'word'];
const OPEN: Record<Quoting, [string, string]> = {
  none: ['', ''],
  double: ['"', '"'],
  single: ["'", "'"],
};

describe('wordMeaning', () => {
  it('reads the line rules as HAProxy does (checked on a real HAProxy in the e2e suite)', () => {
    expect(wordMeaning('"a\\qb"', 'word').text).toBe('a\\qb');
    expect(wordMeaning("'a\\qb'", 'word').text).toBe('a\\qb');
    expect(wordMeaning("'a'\\''b'", 'word').text).toBe("a'b");
    expect(wordMeaning('a$HOME${HOME}b', 'word')).toMatchObject({
      text: 'a$HOME${HOME}b',
      live: [],
    });
    expect(wordMeaning('"a$HOME.b"', 'word').live).toEqual(['$HOME']);
    expect(wordMeaning('"a\\$HOME\\${HOME}b"', 'word')).toMatchObject({
      text: 'a$HOME${HOME}b',
      live: [],
    });
    expect(wordMeaning('a\\qb\\\\c\\#d', 'word').text).toBe('a\\qb\\c#d');
    expect(wordMeaning('a\\$b', 'word').text).toBe('a\\$b');
    expect(wordMeaning('"a%%b\\x41"', 'log-format')).toMatchObject({ text: 'a%bA', live: [] });
    expect(wordMeaning('"a"\'b\'c d', 'word')).toMatchObject({ text: 'abc', end: 7 });
    expect(wordMeaning('a#b', 'word')).toMatchObject({ text: 'a', end: 1 });
  });

  it('finds every live log-format item and environment reference', () => {
    expect(wordMeaning('ok%[env(HOME)]', 'log-format').live).toEqual(['%[env(HOME)]']);
    expect(wordMeaning('%{+Q}[env(PATH)]x', 'log-format').live).toEqual(['%{+Q}[env(PATH)]']);
    expect(wordMeaning('"${HOME}"', 'log-format').live).toEqual(['${HOME}']);
    expect(readLogFormat('%ci:%cp %% %Z1 %').live).toEqual(['%ci', '%cp', '%Z1', '%']);
    // outside a log-format, `%` is text
    expect(wordMeaning('ok%[env(HOME)]', 'word')).toMatchObject({
      text: 'ok%[env(HOME)]',
      live: [],
    });
  });
});

describe('writeLiteral (property over every hostile value, kind and quoting)', () => {
  it('writes a word HAProxy reads as the literal value, with nothing live', () => {
    fc.assert(
      fc.property(
        hostile,
        fc.constantFrom(...KINDS),
        fc.constantFrom<Quoting>('none', 'double', 'single'),
        (v, kind, q) => {
          const w = writeLiteral(v, kind, q);
          expect(w.ok).toBe(true);
          if (!w.ok) return;
          const [open, close] = OPEN[q];
          const m = wordMeaning(`pre${open}${w.text}${close}post next`, kind);
          expect(m.live).toEqual([]);
          expect(m.text).toBe(`pre${v}post`);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses a `%` or `$` where the kind is not known, and a sample expression', () => {
    for (const v of HOSTILE_VALUES.filter((h) => /[%$]/.test(h))) {
      expect(writeLiteral(v, undefined, 'none').ok).toBe(false);
    }
    expect(writeLiteral('a b', undefined, 'none')).toEqual({ ok: true, text: 'a\\ b' });
    expect(writeLiteral('req.hdr(cookie)', 'sample', 'none').ok).toBe(false);
    expect(writeLiteral('x-foo', 'sample', 'none', true)).toEqual({ ok: true, text: 'x-foo' });
    expect(writeLiteral('a),env(HOME', 'sample', 'none', true).ok).toBe(false);
  });

  it('a sample-fetch argument written is exactly the value, or refused', () => {
    fc.assert(
      fc.property(hostile, (v) => {
        const w = writeLiteral(v, 'sample', 'none', true);
        if (w.ok) {
          expect(w.text).toBe(v);
          expect(wordMeaning(`req.hdr(${w.text})`, 'sample')).toMatchObject({
            text: `req.hdr(${v})`,
            live: [],
          });
        } else expect(v).toMatch(/[\s"'\\#(),[\]{}$%]/);
      }),
    );
  });
});

describe('DIRECTIVE_ARGS', () => {
  it('every entry names its manual section and each argument is found by argumentPlace', () => {
    for (const e of DIRECTIVE_ARGS) {
      expect(e.manual).toMatch(/^\d/);
      const words = e.words.map((w) => (w.endsWith('(') ? `${w}txn.x)` : w));
      e.args.forEach((kind, i) => {
        const before = [...words, ...e.args.slice(0, i).map(() => 'arg')];
        expect(argumentKind(before), before.join(' ')).toBe(kind);
        expect(argumentPlace(`  ${before.join(' ')} `).kind, before.join(' ')).toBe(
          kind === 'sample' ? 'sample' : kind,
        );
      });
      for (const [option, kinds] of Object.entries(e.options ?? {})) {
        kinds.forEach((kind, i) => {
          const before = [...words, option, ...kinds.slice(0, i).map(() => 'arg')];
          expect(argumentKind(before), before.join(' ')).toBe(kind);
        });
      }
    }
  });

  it('places the reproducer and its neighbours', () => {
    const place = (p: string) => argumentPlace(p);
    expect(place('  http-request set-header X-Route-Tag ')).toMatchObject({
      kind: 'log-format',
      quoting: 'none',
    });
    expect(place('  http-request return status 200 lf-string "pre ')).toMatchObject({
      kind: 'log-format',
      quoting: 'double',
    });
    expect(place('  http-request redirect location ')).toMatchObject({ kind: 'log-format' });
    expect(place("  http-request set-var-fmt(txn.tag) 'x")).toMatchObject({
      kind: 'log-format',
      quoting: 'single',
    });
    expect(place('  http-request set-var(txn.tag) ')).toMatchObject({
      kind: 'sample',
      inSampleArgs: false,
    });
    expect(place('  http-request set-header X-A %[req.hdr(')).toMatchObject({
      kind: 'sample',
      inSampleArgs: true,
    });
    expect(place('  \uE000 set-header ')).toMatchObject({ kind: 'word' });
    expect(place('  \uE000 set-header \uE000 ')).toMatchObject({ kind: 'log-format' });
    expect(place(' { path -m str ')).toMatchObject({ kind: 'acl-pattern' });
    expect(place(' { path -m reg ')).toMatchObject({ kind: 'regex' });
    expect(place('  use_backend b if { req.fhdr(')).toMatchObject({
      kind: 'sample',
      inSampleArgs: true,
    });
    expect(place('  acl a path_reg ')).toMatchObject({ kind: 'regex' });
    // a fetch the template fills in: `-m` alone decides (the Gateway library's header matches)
    expect(place(' { req.fhdr(\uE000) -m str ')).toMatchObject({ kind: 'acl-pattern' });
    expect(place(' { url_param(\uE000) -m reg ')).toMatchObject({ kind: 'regex' });
    expect(place(' { \uE000 ').kind).toBeUndefined();
    expect(place('  acl a path_reg -m str ')).toMatchObject({ kind: 'acl-pattern' });
    expect(place('  http-request set-header X-A v if { hdr(host) -i ')).toMatchObject({
      kind: 'acl-pattern',
    });
    expect(place('  some-directive ').kind).toBeUndefined();
    expect(place('  # a comment ').comment).toBe(true);
  });
});
