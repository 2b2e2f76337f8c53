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

/** A server as the generators draw it; `lineOf` writes it as a directive. */
interface DrawnServer {
  readonly n: number;
  readonly ip: number;
  readonly port: number;
  readonly weight: number;
  readonly maint: boolean;
  readonly check: boolean;
}
const drawnServer: fc.Arbitrary<DrawnServer> = fc.record({
  n: fc.integer({ min: 0, max: 5 }),
  ip: fc.integer({ min: 1, max: 9 }),
  port: fc.integer({ min: 1, max: 3 }),
  weight: fc.integer({ min: 0, max: 3 }),
  maint: fc.boolean(),
  check: fc.boolean(),
});
const lineOf = (s: DrawnServer): string[] => [
  'server',
  `s${s.n}`,
  `10.0.0.${s.ip}:${8080 + s.port}`,
  ...(s.check ? ['check'] : []),
  'weight',
  String(s.weight),
  ...(s.maint ? ['disabled'] : []),
];
const uniqueByName = (ss: DrawnServer[]): DrawnServer[] =>
  ss.filter((d, i) => ss.findIndex((x) => x.n === d.n) === i);

/**
 * One edit of a server: most keep it; the others change what the runtime API can change (weight,
 * maintenance, address), what it cannot (health checks), or drop the server.
 */
const serverEdit: fc.Arbitrary<(s: DrawnServer) => DrawnServer | undefined> = fc.oneof(
  { arbitrary: fc.constant((s: DrawnServer) => s), weight: 4 },
  {
    arbitrary: fc
      .integer({ min: 0, max: 3 })
      .map((weight) => (s: DrawnServer) => ({ ...s, weight })),
    weight: 1,
  },
  { arbitrary: fc.constant((s: DrawnServer) => ({ ...s, maint: !s.maint })), weight: 1 },
  {
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 3 }))
      .map(([ip, port]) => (s: DrawnServer) => ({ ...s, ip, port })),
    weight: 1,
  },
  { arbitrary: fc.constant((s: DrawnServer) => ({ ...s, check: !s.check })), weight: 1 },
  { arbitrary: fc.constant(() => undefined), weight: 1 },
);

/**
 * A backend before and after a change drawn from it (not drawn independently, which made the two
 * rarely comparable): half of the backends stay as they are, the rest get one edit per server and
 * up to two new servers.
 */
const backendPair = fc
  .record({
    balance: fc.constantFrom('roundrobin', 'leastconn', 'source'),
    before: fc.array(drawnServer, { maxLength: 5 }).map(uniqueByName),
  })
  .chain(({ balance, before }) =>
    fc
      .record({
        unchanged: fc.boolean(),
        edits: fc.array(serverEdit, { minLength: before.length, maxLength: before.length }),
        added: fc.array(drawnServer, { maxLength: 2 }),
      })
      .map(({ unchanged, edits, added }) => {
        const edited = before.flatMap((s, i) => edits[i]!(s) ?? []);
        const after = unchanged ? before : uniqueByName([...edited, ...added]);
        return { balance, before: before.map(lineOf), after: after.map(lineOf) };
      }),
  );
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

/** The backends of drawn pairs, as the source and the target model. */
const modelsOf = (pairs: { balance: string; before: string[][]; after: string[][] }[]) => ({
  from: withBackends(pairs.map((p) => ({ balance: p.balance, servers: p.before }))),
  to: withBackends(pairs.map((p) => ({ balance: p.balance, servers: p.after }))),
});
const sortedLines = (m: HaproxyConfigModel) => printConfig(m).split('\n').sort();

describe('properties: applying a diff', () => {
  it('the runtime changes of a diff, applied to the source, yield the target', () => {
    const runs = 300;
    let applied = 0;
    fc.assert(
      fc.property(fc.array(backendPair, { minLength: 1, maxLength: 3 }), (pairs) => {
        const { from, to } = modelsOf(pairs);
        const d = diffConfig(from, to);
        if (d.structural.length > 0) return; // a reload applies the target as a whole
        applied++;
        const after = applyRuntime(from, d.runtime);
        expect(diffConfig(after, to)).toEqual({ runtime: [], structural: [] });
        expect(sortedLines(after)).toEqual(sortedLines(to));
      }),
      { numRuns: runs },
    );
    // the draws reach the runtime path often (about half of them), not by luck
    expect(applied).toBeGreaterThan(runs / 5);
  });
  it('a diff is empty exactly when the servers are the same', () => {
    const runs = 300;
    let empty = 0;
    fc.assert(
      fc.property(fc.array(backendPair, { minLength: 1, maxLength: 3 }), (pairs) => {
        const { from, to } = modelsOf(pairs);
        const same = isEmptyDiff(diffConfig(from, to));
        if (same) empty++;
        expect(same).toBe(JSON.stringify(sortedLines(from)) === JSON.stringify(sortedLines(to)));
      }),
      { numRuns: runs },
    );
    // both sides of "exactly when" are drawn often
    expect(empty).toBeGreaterThan(runs / 10);
    expect(empty).toBeLessThan(runs - runs / 10);
  });
});
