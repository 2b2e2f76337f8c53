import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { argumentPlace, wordMeaning, type ArgKind } from '#haproxy-config';
import { compileTemplates } from './compile.js';
import { linePrefix } from './places.js';
import { render } from './render.js';
import { specOf } from './spec-fixture.test.js';
import type { RenderResult } from './types.js';

// The escaper knows HAProxy's argument kinds: an untrusted value (from a watched object) reaches
// haproxy.cfg as a word HAProxy reads literally, through a bare {{ }} or a typed filter, or the
// object is quarantined with a problem naming it.

const REPRODUCERS = ['ok%[env(HOME)]', '%[req.hdr(cookie)]', '%{+Q}[env(PATH)]'];
const ENV = ['${HOME}', '$HOME'];
const KEY = 'example/route-tag';

const ingress = (name: string, tag: string): object => ({
  kind: 'Ingress',
  metadata: { namespace: 'ns', name, annotations: { [KEY]: tag } },
});

function run(template: string, tag: string): RenderResult {
  const haproxy = `{%- for ing in resources.ingresses %}\n${template}\n{%- endfor %}\n`;
  const compiled = compileTemplates(specOf({ haproxy }));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
  const snap = snapshotOf(
    { ingresses: ['metadata.namespace', 'metadata.name'] },
    { ingresses: [ingress('tagged', tag)] },
  );
  return render(compiled.value, snap);
}

/** The line the template rendered for the Ingress, or the problem it was quarantined with. */
function line(template: string, tag: string): { line?: string; refused?: string } {
  const r = run(template, tag);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const q = r.quarantined[0];
  if (q) {
    expect(q.object).toMatchObject({ kind: 'Ingress', namespace: 'ns', name: 'tagged' });
    return { refused: q.problem.message };
  }
  return { line: r.outputs.haproxyConfig.replace(/^\n+|\n+$/g, '') };
}

const V = `ing.metadata.annotations["${KEY}"]`;

/** HAProxy's reading of the word at `index` of `rendered` as an argument of `kind`. */
function wordAt(rendered: string, index: number, kind: ArgKind) {
  let at = 0;
  for (let i = 0; i < index; i++) at = wordMeaning(rendered.slice(at), 'word').end + at;
  return wordMeaning(rendered.slice(at), kind);
}

describe('the escaper writes untrusted values for the argument kind where {{ }} stands', () => {
  it.each([...REPRODUCERS, ...ENV, 'a "quoted" \\ value #1'])(
    'set-header, unquoted: %s reads literally',
    (tag) => {
      const out = line(`http-request set-header X-Route-Tag {{ ${V} }} if TRUE`, tag);
      expect(out.line).toBeDefined();
      const m = wordAt(out.line!, 3, 'log-format');
      expect(m).toMatchObject({ text: tag, live: [] });
      expect(wordAt(out.line!, 4, 'word').text).toBe('if');
    },
  );

  it.each([...REPRODUCERS, ...ENV])(
    'return lf-string in double quotes: %s reads literally',
    (tag) => {
      const out = line(
        `http-request return status 200 content-type text/plain lf-string "tag={{ ${V} }}"`,
        tag,
      );
      expect(wordAt(out.line!, 7, 'log-format')).toMatchObject({ text: `tag=${tag}`, live: [] });
    },
  );

  it.each([...REPRODUCERS, ...ENV])(
    'redirect location and set-var-fmt in single quotes: %s',
    (tag) => {
      const redirect = line(`http-request redirect location /r/{{ ${V} }} code 302`, tag);
      expect(wordAt(redirect.line!, 3, 'log-format')).toMatchObject({
        text: `/r/${tag}`,
        live: [],
      });
      const setVar = line(`http-request set-var-fmt(txn.tag) 'v:{{ ${V} }}'`, tag);
      expect(wordAt(setVar.line!, 2, 'log-format')).toMatchObject({ text: `v:${tag}`, live: [] });
    },
  );

  it('the same value is left as it is where HAProxy reads it literally (an ACL pattern)', () => {
    const out = line(`http-request deny if { req.hdr(x-tag) -m str {{ ${V} }} }`, 'ok%[env(HOME)]');
    expect(out.line).toBe('http-request deny if { req.hdr(x-tag) -m str ok%[env(HOME)] }');
  });

  it('refuses, naming the Ingress, where the value would be an expression or the kind is not known', () => {
    expect(line(`http-request set-var(txn.tag) {{ ${V} }}`, 'req.hdr(cookie)').refused).toMatch(
      /sample expression/,
    );
    expect(
      line(`http-request set-header X-A %[req.hdr({{ ${V} }})]`, 'a),env(HOME').refused,
    ).toMatch(/sample-fetch argument/);
    expect(line(`some-future-directive {{ ${V} }}`, 'ok%[env(HOME)]').refused).toMatch(
      /unknown kind/,
    );
    // a value the template composed around the untrusted text, where `%` would be live
    expect(
      line(`http-request set-header X-A {{ ${V} | prepend: "v=" }}`, 'ok%[env(HOME)]').refused,
    ).toMatch(/watched object/);
  });

  it('haproxy_quote where the kind is not known: an untrusted % is refused, a $ escaped', () => {
    expect(
      line(`{{ "x" }} {{ "y" }} {{ ${V} | haproxy_quote }}`, 'ok%[env(HOME)]').refused,
    ).toMatch(/unknown kind/);
    expect(line(`some-directive {{ ${V} | haproxy_quote }}`, '${HOME}').line).toBe(
      'some-directive "\\${HOME}"',
    );
  });

  it('typed filters write for the kind too: haproxy_quote in a log-format doubles %', () => {
    for (const tag of [...REPRODUCERS, ...ENV]) {
      const q = line(`http-request set-header X-A {{ ${V} | haproxy_quote }}`, tag);
      expect(wordAt(q.line!, 3, 'log-format')).toMatchObject({ text: tag, live: [] });
      const h = line(`http-request set-header X-A {{ ${V} | header_value }}`, tag);
      expect(wordAt(h.line!, 3, 'log-format')).toMatchObject({ text: tag, live: [] });
      // and stays a literal `-m str` pattern (no doubling where HAProxy does not read `%`)
      const p = line(`acl a req.hdr(x) -m str {{ ${V} | haproxy_quote }}`, tag);
      expect(wordAt(p.line!, 5, 'acl-pattern')).toMatchObject({ text: tag, live: [] });
    }
  });

  it("an operator constant is the operator's: the template may write expressions", () => {
    const r = run('http-request set-header X-A {{ "%[src]" }} {{ ing.metadata.name }}', 'x');
    expect(r.ok && r.outputs.haproxyConfig).toContain('X-A %[src] tagged');
  });

  it('raw stays the operator opt-out', () => {
    expect(line(`http-request set-header X-A {{ ${V} | raw }}`, 'ok%[env(HOME)]').line).toContain(
      'X-A ok%[env(HOME)]',
    );
  });

  it('property: any untrusted value at any place of a log-format line reads literally or is refused', () => {
    const places = [
      (v: string) => [`http-request set-header X-A {{ ${v} }}`, 3],
      (v: string) => [`http-response add-header X-A "p {{ ${v} }} s"`, 3],
      (v: string) => [`http-request return status 200 content-type t lf-string 'a{{ ${v} }}b'`, 7],
      (v: string) => [`http-after-response set-header X-A x{{ ${v} }}y`, 3],
    ] as const;
    const piece = fc.constantFrom(
      '%',
      '$',
      '{',
      '[',
      ']',
      '(',
      '"',
      "'",
      '\\',
      '#',
      ' ',
      'HOME',
      'env(',
      'x41',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 8 }),
        fc.constantFrom(0, 1, 2, 3),
        (ps, p) => {
          const tag = ps.join('');
          const [template, index] = places[p](V);
          const out = line(template as string, tag);
          if (out.refused !== undefined) return;
          const m = wordAt(out.line!, index as number, 'log-format');
          expect(m.live).toEqual([]);
          expect(m.text).toContain(tag);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('linePrefix', () => {
  it('sees earlier outputs as unknown words and tags as nothing', () => {
    expect(argumentPlace(linePrefix('  {{ dir }} set-header {{ n }} {{ v }}', 31)).kind).toBe(
      'log-format',
    );
    expect(argumentPlace(linePrefix('x\n  {%- if a %} { path -m str {{ v }} }', 31)).kind).toBe(
      'acl-pattern',
    );
  });
});
