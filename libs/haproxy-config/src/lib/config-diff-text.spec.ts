import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffConfig } from './config-diff.js';
import { diffConfigText } from './config-diff-text.js';
import { parseConfig, printConfig, type HaproxyConfigModel } from './config-model.js';

const whole = (a: string, b: string) => diffConfig(parseConfig(a), parseConfig(b));

const BASE = `# _version=3
global
  log stdout format raw local0
defaults
  mode http
  balance roundrobin
frontend http
  bind :80
  use_backend %[var(txn.route)]
backend svc_a
  server srv1 10.0.0.1:80 weight 1
  server srv2 0.0.0.0:1 weight 1 disabled
backend svc_b
  server srv1 10.0.0.2:80 weight 1
backend svc_c
  server srv1 10.0.0.3:80 weight 1 track svc_b/srv1
`;

describe('diffConfigText', () => {
  it('gives what diffConfig gives on the parsed texts, for runtime and structural changes', () => {
    const cases = [
      BASE,
      BASE.replace('10.0.0.1:80', '10.0.0.9:81'),
      BASE.replace('0.0.0.0:1 weight 1 disabled', '10.0.0.7:80 weight 1'),
      BASE.replace('  server srv1 10.0.0.2:80 weight 1\n', ''), // removing a tracked server
      BASE.replace('balance roundrobin', 'balance source'),
      BASE.replace('backend svc_b', 'backend svc_d'),
      BASE.replace('  bind :80', '  bind :80 # a comment\n\n'),
      `${BASE}backend svc_e\n  server srv1 10.0.0.5:80\n`,
    ];
    for (const a of cases) for (const b of cases) expect(diffConfigText(a, b)).toEqual(whole(a, b));
  });

  it('answers a pair asked again (validation, then the plan) as the first time, and a new pair anew', () => {
    const moved = BASE.replace('10.0.0.1:80', '10.0.0.9:81');
    const first = diffConfigText(BASE, moved);
    expect(diffConfigText(BASE, moved)).toBe(first);
    // equal texts made apart are the same pair
    expect(diffConfigText(`${BASE}`, moved.slice(0))).toBe(first);
    expect(diffConfigText(moved, BASE)).toEqual(whole(moved, BASE));
    expect(diffConfigText(BASE, BASE)).toEqual({ runtime: [], structural: [] });
    expect(diffConfigText(BASE, moved)).toEqual(whole(BASE, moved));
  });

  it('keeps refusing to delete a server another section tracks', () => {
    const d = diffConfigText(BASE, BASE.replace('  server srv1 10.0.0.2:80 weight 1\n', ''));
    expect(d.structural).toEqual([
      { section: 'backend svc_b', reason: 'server srv1 removed: referenced elsewhere' },
    ]);
  });
});

const word = fc.stringMatching(/^[A-Za-z0-9_.:/%$[\]{}(),=-]{1,8}$/);
const spaced = fc.oneof(word, fc.constantFrom('a b', "it's", 'x#y', 'q"r', 'track', 'roundrobin'));
const directive = fc
  .oneof(
    fc.tuple(
      fc.constantFrom('option', 'acl', 'balance', 'default-server'),
      fc.array(spaced, { maxLength: 3 }),
    ),
    fc.tuple(
      fc.constant('server'),
      fc
        .tuple(
          fc.constantFrom('s1', 's2', 's3'),
          fc.constantFrom('10.0.0.1:80', '10.0.0.2:80', '0.0.0.0:1', 'name.example:80'),
          fc.constantFrom([], ['weight', '2'], ['disabled'], ['check'], ['track', 'b/s1']),
        )
        .map(([n, a, rest]) => [n, a, ...rest]),
    ),
  )
  .map(([k, ws]) => [k, ...ws]);
const section = fc.record({
  type: fc.constantFrom('defaults', 'frontend', 'backend', 'listen'),
  name: fc.constantFrom('a', 'b', 'c', 'd', ''),
  directives: fc.array(directive, { maxLength: 4 }),
});
const model: fc.Arbitrary<HaproxyConfigModel> = fc.array(section, { maxLength: 6 }).map((ss) => ({
  sections: [{ type: 'global', name: '', directives: [['log', 'stderr', 'local0']] }, ...ss],
}));
/** A second model sharing most sections with the first: some replaced, dropped or appended. */
const pair = fc
  .tuple(model, model, fc.array(fc.nat(9), { maxLength: 8 }))
  .map(([m, other, edits]) => {
    const sections = [...m.sections];
    for (const e of edits) {
      const i = e % (sections.length + 1);
      const from = other.sections[e % other.sections.length];
      if (e < 4 && from) sections[i] = from;
      else if (e < 7) sections.splice(i, 1);
      else if (from) sections.splice(i, 0, from);
    }
    return [printConfig(m), printConfig({ sections })] as const;
  });

describe('diffConfigText: properties', () => {
  it('equals diffConfig on the parsed texts for any two related configurations', () => {
    fc.assert(
      fc.property(pair, ([a, b]) => {
        expect(diffConfigText(a, b)).toEqual(whole(a, b));
      }),
      { numRuns: 1500 },
    );
  });
});

/** The same text as HAProxy reads it, written otherwise: CRLF ends, indented headers, comments. */
const rewritten = (text: string, style: number): string =>
  text
    .split('\n')
    .map((line, i) => {
      const indented = style & 1 && /^[a-z]/.test(line) ? `\t ${line}` : line;
      const commented = style & 2 && i % 3 === 0 ? `# note ${i}\n${indented}` : indented;
      return style & 4 ? `${commented}\r` : commented;
    })
    .join('\n');

describe('diffConfigText: how the text is written', () => {
  it('equals diffConfig on the parsed texts with CRLF line ends, indented headers and comments', () => {
    fc.assert(
      fc.property(pair, fc.nat(7), fc.nat(7), ([a, b], sa, sb) => {
        const [x, y] = [rewritten(a, sa), rewritten(b, sb)];
        expect(diffConfigText(x, y)).toEqual(whole(x, y));
      }),
      { numRuns: 500 },
    );
  });

  it('reads a quoted section keyword as a header, as HAProxy does', () => {
    const a = 'global\n  log stderr local0\n"backend" b\n  server s1 10.0.0.1:80\n';
    const b = a.replace('10.0.0.1', '10.0.0.2');
    expect(diffConfigText(a, b)).toEqual(whole(a, b));
    expect(diffConfigText(a, b).runtime).toHaveLength(1);
  });
});
