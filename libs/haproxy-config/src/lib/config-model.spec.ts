import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  diffConfig,
  isEmptyDiff,
  serverSpec,
  type ConfigDiff,
  type ServerSpec,
} from './config-diff.js';
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

describe('diffConfig: repeated sections', () => {
  it('compares each occurrence of a repeated section with its own (two defaults sections)', () => {
    const two = 'defaults\n  mode http\ndefaults\n  mode tcp\nfrontend a\n  bind :80\n';
    expect(diff(two, two)).toEqual({ runtime: [], structural: [] });
    const changed = two.replace('mode tcp', 'mode http');
    expect(diff(two, changed).structural).toEqual([
      { section: 'defaults', reason: 'directives changed' },
    ]);
  });
});

describe('properties', () => {
  it('parse∘print is the identity on the model', () => {
    fc.assert(
      fc.property(model, (m) => {
        expect(parseConfig(printConfig(m))).toEqual(m);
      }),
    );
  });
  it('the diff of a configuration with itself is empty', () => {
    fc.assert(
      fc.property(model, (m) => isEmptyDiff(diffConfig(m, parseConfig(printConfig(m))))),
      { numRuns: 2000 },
    );
  });
});

/** Applies runtime changes to a model as HAProxy's runtime API would (set/add/del server). */
function applyRuntime(m: HaproxyConfigModel, changes: ConfigDiff['runtime']): HaproxyConfigModel {
  const line = (s: ServerSpec): string[] => [
    'server',
    s.name,
    s.port === undefined ? s.address : `${s.address}:${s.port}`,
    ...s.params,
    ...(s.weight === undefined ? [] : ['weight', String(s.weight)]),
    ...(s.maint ? ['disabled'] : []),
  ];
  const sections = m.sections.map((sec) => ({ ...sec, directives: [...sec.directives] }));
  for (const c of changes) {
    const sec = sections.find((s) => s.type === 'backend' && s.name === c.backend)!;
    const at = (name: string) =>
      sec.directives.findIndex((d) => d[0] === 'server' && d[1] === name);
    if (c.kind === 'server.add') sec.directives.push(line(c.spec));
    else if (c.kind === 'server.del') sec.directives.splice(at(c.server), 1);
    else {
      const i = at(c.server);
      const was = serverSpec(sec.directives[i]!);
      sec.directives[i] = line({
        ...was,
        ...(c.address !== undefined ? { address: c.address, port: c.port } : {}),
        ...(c.weight !== undefined ? { weight: c.weight } : {}),
        ...(c.maint !== undefined ? { maint: c.maint } : {}),
      });
    }
  }
  return { sections };
}

const serverLine = fc
  .record({
    n: fc.integer({ min: 0, max: 5 }),
    ip: fc.integer({ min: 1, max: 9 }),
    port: fc.integer({ min: 1, max: 3 }),
    weight: fc.integer({ min: 0, max: 3 }),
    maint: fc.boolean(),
    check: fc.boolean(),
  })
  .map((s) => [
    'server',
    `s${s.n}`,
    `10.0.0.${s.ip}:${8080 + s.port}`,
    ...(s.check ? ['check'] : []),
    'weight',
    String(s.weight),
    ...(s.maint ? ['disabled'] : []),
  ]);
const servers = fc
  .array(serverLine, { maxLength: 5 })
  .map((ds) => ds.filter((d, i) => ds.findIndex((x) => x[1] === d[1]) === i));
const backendPair = fc.record({
  balance: fc.constantFrom('roundrobin', 'leastconn', 'source'),
  before: servers,
  after: servers,
});
const withBackends = (bs: { balance: string; servers: string[][] }[]): HaproxyConfigModel => ({
  sections: [
    { type: 'global', name: '', directives: [['log', 'stderr', 'local0']] },
    ...bs.map((b, i) => ({
      type: 'backend',
      name: `be${i}`,
      directives: [['balance', b.balance], ...b.servers],
    })),
  ],
});

describe('properties: applying a diff', () => {
  it('the runtime changes of a diff, applied to the source, yield the target', () => {
    fc.assert(
      fc.property(fc.array(backendPair, { minLength: 1, maxLength: 3 }), (pairs) => {
        const from = withBackends(pairs.map((p) => ({ balance: p.balance, servers: p.before })));
        const to = withBackends(pairs.map((p) => ({ balance: p.balance, servers: p.after })));
        const d = diffConfig(from, to);
        if (d.structural.length > 0) return; // a reload applies the target as a whole
        const applied = applyRuntime(from, d.runtime);
        expect(diffConfig(applied, to)).toEqual({ runtime: [], structural: [] });
        expect(printConfig(applied).split('\n').sort()).toEqual(printConfig(to).split('\n').sort());
      }),
      { numRuns: 300 },
    );
  });
  it('a diff with no runtime and no structural change means the same servers', () => {
    fc.assert(
      fc.property(fc.array(backendPair, { minLength: 1, maxLength: 3 }), (pairs) => {
        const from = withBackends(pairs.map((p) => ({ balance: p.balance, servers: p.before })));
        const to = withBackends(pairs.map((p) => ({ balance: p.balance, servers: p.after })));
        if (!isEmptyDiff(diffConfig(from, to))) return;
        expect(printConfig(from).split('\n').sort()).toEqual(printConfig(to).split('\n').sort());
      }),
    );
  });
});
