import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { splitWords } from '#haproxy-config';
import { compileTemplates } from './compile.js';
import { render } from './render.js';
import { specOf } from './spec-fixture.test.js';

// Property tests for every escaping filter, through the real engine: whatever the value, the
// output is the value as HAProxy will read it (HAProxy's word rules, `#haproxy-config`
// splitWords), in one word of one line, or the render refuses it with a problem.

/** Renders `template` with `extra.v = v`: the config text, or undefined when refused. */
function out(template: string, v: string): string | undefined {
  const compiled = compileTemplates(specOf({ haproxy: template, extra: { v } }));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const r = render(compiled.value, snapshotOf({ ingresses: ['metadata.name'] }, { ingresses: [] }));
  if (!r.ok) {
    expect(r.problems.length).toBeGreaterThan(0);
    return undefined;
  }
  return r.outputs.haproxyConfig;
}

/** Any text, control characters and non-ASCII included, often with HAProxy's special characters. */
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc
    .array(
      fc.constantFrom(
        '"',
        "'",
        '\\',
        '$',
        '%',
        '#',
        ' ',
        ';',
        '[',
        ']',
        '{',
        '}',
        'a',
        '\n',
        '\r',
        '\0',
        '\t',
        '.',
        '*',
        '/',
      ),
      { maxLength: 20 },
    )
    .map((cs) => cs.join('')),
);
// eslint-disable-next-line no-control-regex -- the oracle: C0 and C1 control characters, DEL
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// 500 renders per property: seconds on a busy 2-core machine, so a budget above the default 5 s.
describe('escaping filters (properties)', { timeout: 30_000 }, () => {
  it('haproxy_quote: one word that HAProxy reads back as the value; control characters refused', () => {
    fc.assert(
      fc.property(anyText, (v) => {
        const cfg = out('x {{ extra.v | haproxy_quote }} y', v);
        if (CONTROL.test(v)) {
          expect(cfg).toBeUndefined();
          return;
        }
        expect(cfg!.split('\n')).toHaveLength(1);
        expect(splitWords(cfg!)).toEqual(['x', v, 'y']);
        // `$` never starts an environment reference inside the quotes
        expect(cfg!).not.toMatch(/(^|[^\\])\$/);
      }),
      { numRuns: 500 },
    );
  });

  it('header_value: one word, `%` doubled (never a log-format expression); control characters refused', () => {
    fc.assert(
      fc.property(anyText, (v) => {
        const cfg = out('x {{ extra.v | header_value }} y', v);
        if (CONTROL.test(v)) {
          expect(cfg).toBeUndefined();
          return;
        }
        const words = splitWords(cfg!);
        expect(words).toEqual(['x', v.replace(/%/g, '%%'), 'y']);
        // every % in the word is doubled: no %[ or %{ survives as an expression
        expect(words[1]!.replace(/%%/g, '')).not.toContain('%');
      }),
      { numRuns: 500 },
    );
  });

  it('regex_escape: a pattern that matches the value literally and nothing else', () => {
    fc.assert(
      fc.property(anyText, anyText, (v, w) => {
        const cfg = out('{{ extra.v | regex_escape }}', v);
        if (CONTROL.test(v)) return; // the output escaper refuses it (checked below)
        const re = new RegExp(`^(?:${cfg!})$`);
        expect(re.test(v)).toBe(true);
        if (w !== v) expect(re.test(w)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('haproxy_regex: one unquoted word whose text is the literal pattern of the value; empty refused', () => {
    fc.assert(
      fc.property(anyText, (v) => {
        const cfg = out('x {{ extra.v | haproxy_regex }} y', v);
        if (CONTROL.test(v) || v === '') {
          expect(cfg).toBeUndefined();
          return;
        }
        const words = splitWords(cfg!);
        expect(words).toHaveLength(3);
        expect(new RegExp(`^(?:${words[1]!})$`).test(v)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('valid_hostname and valid_path: accepted values are single words of safe characters', () => {
    fc.assert(
      fc.property(anyText, (v) => {
        const host = out('x {{ extra.v | valid_hostname }} y', v);
        if (host !== undefined) {
          expect(splitWords(host)).toEqual(['x', v.toLowerCase(), 'y']);
          expect(host).toMatch(/^x [a-z0-9.*-]+ y$/);
        }
        const path = out('x {{ extra.v | valid_path }} y', v);
        if (path !== undefined) {
          expect(splitWords(path)).toEqual(['x', v, 'y']);
          expect(v).toMatch(/^\//);
          expect(v).not.toMatch(/[\s"'#\\]/);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('the output escaper: a plain {{ }} output never adds a line (control characters refused)', () => {
    fc.assert(
      fc.property(anyText, (v) => {
        const cfg = out('x {{ extra.v }} y', v);
        if (CONTROL.test(v)) {
          expect(cfg).toBeUndefined();
          return;
        }
        expect(cfg!.split('\n')).toHaveLength(1);
      }),
      { numRuns: 500 },
    );
  });
});
