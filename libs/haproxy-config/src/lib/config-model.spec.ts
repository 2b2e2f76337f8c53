import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffConfig, isEmptyDiff } from './config-diff.js';
import { parseConfig, printConfig, type HaproxyConfigModel } from './config-model.js';

const BASE = `# _version=7
global
  log stderr format raw local0   # a comment
defaults
  mode http
  timeout client 10s

frontend fe
  bind "\${POD_IP}":8080
  http-request set-header X-A 'a b'
  use_backend %[req.hdr(host),lower,map(maps/hosts.map,be_a)]
backend be_a
  balance roundrobin
  server s1 127.0.0.1:9001 weight 10 check
  server s2 127.0.0.1:9002 disabled
backend be_hash
  balance source
  server h1 127.0.0.1:9003
`;

const diff = (a: string, b: string) => diffConfig(parseConfig(a), parseConfig(b));

describe('parseConfig / printConfig', () => {
  it('ignores comments, blank lines and indentation, keeps order and quoting semantics', () => {
    const m = parseConfig(BASE);
    expect(m.sections.map((s) => `${s.type}:${s.name}`)).toEqual([
      'global:',
      'defaults:',
      'frontend:fe',
      'backend:be_a',
      'backend:be_hash',
    ]);
    expect(m.sections[2]?.directives[1]).toEqual(['http-request', 'set-header', 'X-A', 'a b']);
    const printed = printConfig(m);
    expect(printed).toContain('  bind "${POD_IP}:8080"');
    expect(parseConfig(printed)).toEqual(m);
    expect(
      isEmptyDiff(diff(BASE, BASE.replace(/ {3}# a comment/, '').replace(/\n\n/g, '\n'))),
    ).toBe(true);
  });
});

describe('diffConfig', () => {
  it('classifies server address, port, weight and state as runtime', () => {
    const d = diff(
      BASE,
      BASE.replace('127.0.0.1:9001 weight 10', '127.0.0.2:9011 weight 20').replace(
        '127.0.0.1:9002 disabled',
        '127.0.0.1:9002',
      ),
    );
    expect(d.structural).toEqual([]);
    expect(d.runtime).toEqual([
      {
        kind: 'server.set',
        backend: 'be_a',
        server: 's1',
        address: '127.0.0.2',
        port: 9011,
        weight: 20,
      },
      { kind: 'server.set', backend: 'be_a', server: 's2', maint: false },
    ]);
  });

  it('adds and deletes servers at runtime where the backend allows it, else reloads', () => {
    const added = diff(
      BASE,
      BASE.replace('  server s2', '  server s3 127.0.0.1:9004 check\n  server s2'),
    );
    expect(added.runtime.map((c) => c.kind)).toEqual(['server.add']);
    expect(added.structural).toEqual([]);
    const removed = diff(BASE, BASE.replace('  server s2 127.0.0.1:9002 disabled\n', ''));
    expect(removed.runtime).toEqual([{ kind: 'server.del', backend: 'be_a', server: 's2' }]);
    const hash = diff(BASE, `${BASE}  server h2 127.0.0.1:9005\n`);
    expect(hash.runtime).toEqual([]);
    expect(hash.structural[0]?.reason).toMatch(/balance source/);
  });

  it('classifies rules, timeouts, sections and server keywords as structural', () => {
    for (const after of [
      BASE.replace('timeout client 10s', 'timeout client 20s'),
      BASE.replace("'a b'", "'a c'"),
      `${BASE}backend be_new\n  server n1 127.0.0.1:1\n`,
      BASE.replace('weight 10 check', 'weight 10 check inter 2s'),
      BASE.replace('log stderr', 'log stdout'),
    ]) {
      const d = diff(BASE, after);
      expect(d.structural.length).toBeGreaterThan(0);
      expect(d.runtime).toEqual([]);
    }
  });
});

const word = fc.stringMatching(/^[A-Za-z0-9_.:/%$[\]{}(),=-]{1,12}$/);
const spaced = fc.oneof(
  word,
  fc.constantFrom('a b', "it's", 'x#y', 'q"r', 'back\\slash', '${POD_IP}:80'),
);
const directive = fc.tuple(
  fc.constantFrom('option', 'timeout', 'server', 'acl', 'http-request', 'bind'),
  fc.array(spaced, { maxLength: 5 }),
);
const section = fc.record({
  type: fc.constantFrom('frontend', 'backend', 'listen'),
  name: fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/),
  directives: fc.array(
    directive.map(([k, ws]) => [k, ...ws]),
    { maxLength: 6 },
  ),
});
const model: fc.Arbitrary<HaproxyConfigModel> = fc
  .array(section, { maxLength: 6 })
  .map((sections) => ({
    sections: [
      { type: 'global', name: '', directives: [['log', 'stderr', 'local0']] },
      ...sections,
    ],
  }));

describe('properties', () => {
  it('parse∘print is the identity on the model', () => {
    fc.assert(
      fc.property(model, (m) => {
        expect(parseConfig(printConfig(m))).toEqual(m);
      }),
    );
  });
  it('the diff of a configuration with itself is empty', () => {
    fc.assert(fc.property(model, (m) => isEmptyDiff(diffConfig(m, parseConfig(printConfig(m))))));
  });
});
