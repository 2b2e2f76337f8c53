import { parseTemplateConfigText } from '#core';
import { describe, expect, it } from 'vitest';
import { emptyOutputs } from './outputs.js';
import type { FixtureRenderer, RenderOutcome } from './render-port.js';
import { formatTestReport } from './report.js';
import { runValidationTests, type TestReport } from './test-runner.js';
import type { ValidationResult } from './validate.js';

// A hand-written renderer: assertion logic is under test here, not templates (the real
// renderer is wired in by the CLI and exercised in test/integration/validation).
let calls = 0;
const renderer: FixtureRenderer = {
  render(req): Promise<RenderOutcome> {
    calls++;
    const ings = (req.fixtures['ingresses'] ?? []) as {
      metadata: { name: string };
      spec?: { host?: string };
    }[];
    const bad = ings.find((i) => !i.spec?.host);
    if (bad) {
      return Promise.resolve({
        ok: false,
        error: {
          message: 'spec.host is required',
          template: 'haproxy.cfg',
          line: 4,
          object: `ingresses/default/${bad.metadata.name}`,
        },
      });
    }
    const stamp = req.extraContext['unstable'] ? `# render ${calls}\n` : '';
    const backends = ings
      .map((i) => `backend be_${i.metadata.name}\n  server s1 127.0.0.1:80\n`)
      .join('');
    return Promise.resolve({
      ok: true,
      outputs: {
        ...emptyOutputs(`${stamp}global\n  daemon\n${backends}`),
        maps: { 'hosts.map': ings.map((i) => `${i.spec?.host} be_${i.metadata.name}\n`).join('') },
      },
    });
  },
};

const validate = (outputs: { haproxyConfig: string }): Promise<ValidationResult> =>
  Promise.resolve(
    outputs.haproxyConfig.includes('be_broken')
      ? {
          valid: false,
          problems: [
            { stage: 'haproxy', output: 'haproxy.cfg', line: 3, reason: "unknown keyword 'x'" },
          ],
          haproxy: { ran: true, durationMs: 5 },
        }
      : { valid: true, problems: [], haproxy: { ran: true, durationMs: 5 } },
  );

const ing = (name: string, host?: string) =>
  `{ apiVersion: networking.k8s.io/v1, kind: Ingress, metadata: { name: ${name}, namespace: default }${host ? `, spec: { host: ${host} }` : ''} }`;

function config(tests: string): string {
  return `
credentialsSecretRef: { name: c }
podSelector: { matchLabels: { app: haproxy } }
watchedResources:
  ingresses: { apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.namespace, metadata.name] }
haproxyConfig: { template: "x" }
templatingSettings: { extraContext: { env: prod } }
validationTests:
  _global:
    fixtures: { ingresses: [${ing('a', 'a.example.com')}] }
${tests}`;
}

async function run(tests: string): Promise<TestReport> {
  const parsed = parseTemplateConfigText(config(tests));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return runValidationTests(parsed.config.spec, renderer, { validate, workers: 2 });
}

const messages = (r: TestReport) =>
  r.tests.flatMap((t) => t.assertions.map((a) => `${a.passed ? 'pass' : 'FAIL'}: ${a.message}`));

describe('assertions', () => {
  it('contains / not_contains', async () => {
    const r = await run(`
  t:
    fixtures: { ingresses: [${ing('b', 'b.example.com')}] }
    assertions:
      - { type: contains, target: 'map:hosts.map', pattern: '^b\\.example\\.com be_b$' }
      - { type: contains, target: 'map:hosts.map', pattern: '^c\\.example\\.com' }
      - { type: not_contains, pattern: 'be_c' }
      - { type: not_contains, pattern: 'backend be_a' }
      - { type: contains, target: 'map:nope.map', pattern: 'x' }`);
    expect(messages(r)).toEqual([
      'pass: /^b\\.example\\.com be_b$/ found at line 2',
      'FAIL: /^c\\.example\\.com/ not found in map:hosts.map (2 lines)',
      'pass: /be_c/ not found in haproxy.cfg',
      'FAIL: /backend be_a/ matched "backend be_a" at line 3 of haproxy.cfg',
      'FAIL: the render has no output map:nope.map (it has: haproxy.cfg, map:hosts.map)',
    ]);
    expect(r.passed).toBe(false);
  });

  it('equals / match_count / match_order', async () => {
    const r = await run(`
  t:
    fixtures: { ingresses: [${ing('b', 'b.example.com')}] }
    assertions:
      - { type: equals, target: 'map:hosts.map', expected: "a.example.com be_a\\nb.example.com be_b\\n" }
      - { type: equals, target: 'map:hosts.map', expected: "a.example.com be_a\\nc.example.com be_c\\n" }
      - { type: match_count, pattern: '^backend ', expected: 2 }
      - { type: match_count, pattern: '^\\s+server ', expected: 3 }
      - { type: match_order, pattern: ['^global', 'backend be_a', 'backend be_b'] }
      - { type: match_order, pattern: ['backend be_b', 'backend be_a'] }`);
    expect(messages(r)).toEqual([
      'pass: map:hosts.map equals the expected text',
      'FAIL: map:hosts.map differs from the expected text at line 2: expected "c.example.com be_c", got "b.example.com be_b"',
      'pass: /^backend / matched 2 times',
      'FAIL: /^\\s+server / matched 2 times in haproxy.cfg, expected 3',
      'pass: all 3 patterns found in order (lines 1, 3, 5)',
      'FAIL: pattern 2 /backend be_a/ not found after /backend be_b/ (line 5) in haproxy.cfg; it occurs earlier, at line 3',
    ]);
  });

  it('deterministic', async () => {
    const r = await run(`
  stable:
    assertions: [{ type: deterministic }]
  unstable:
    extraContext: { unstable: true }
    assertions: [{ type: deterministic }]`);
    const [stable, unstable] = r.tests;
    expect(stable?.assertions[0]?.message).toBe('two renders are byte-identical (2 outputs)');
    expect(unstable?.assertions[0]?.message).toMatch(
      /^haproxy\.cfg differs between two renders at line 1: "# render \d+" then "# render \d+"$/,
    );
    expect(unstable?.passed).toBe(false);
  });

  it('rendering_error', async () => {
    const r = await run(`
  broken:
    fixtures: { ingresses: [${ing('nohost')}] }
    assertions:
      - { type: rendering_error, expected: 'spec.host is required' }
      - { type: rendering_error, expected: 'something else' }
      - { type: contains, pattern: x }
  fine:
    assertions: [{ type: rendering_error }]`);
    expect(messages(r)).toEqual([
      'pass: the render failed as expected: template "haproxy.cfg" line 4, object ingresses/default/nohost: spec.host is required',
      'FAIL: the render failed with "template \\"haproxy.cfg\\" line 4, object ingresses/default/nohost: spec.host is required", which does not contain "something else"',
      'FAIL: the render failed: template "haproxy.cfg" line 4, object ingresses/default/nohost: spec.host is required',
      'FAIL: the render succeeded, but an error was expected',
    ]);
  });

  it('jsonpath on the render context (fixtures merged with _global, extra merged)', async () => {
    const r = await run(`
  t:
    extraContext: { tier: gold }
    fixtures: { ingresses: [${ing('b', 'b.example.com')}] }
    assertions:
      - { type: jsonpath, jsonpath: resources.ingresses.size, expected: 2 }
      - { type: jsonpath, jsonpath: "resources.ingresses[1].metadata.name", expected: b }
      - { type: jsonpath, jsonpath: extra, expected: { env: prod, tier: gold } }
      - { type: jsonpath, jsonpath: resources.ingresses.size, expected: 3 }
      - { type: jsonpath, jsonpath: extra.missing }`);
    expect(messages(r)).toEqual([
      'pass: resources.ingresses.size is 2',
      'pass: resources.ingresses[1].metadata.name is "b"',
      'pass: extra is {"env":"prod","tier":"gold"}',
      'FAIL: resources.ingresses.size is 2, expected 3',
      'FAIL: extra.missing has no value',
    ]);
  });

  it('haproxy_valid', async () => {
    const r = await run(`
  good:
    assertions: [{ type: haproxy_valid }]
  bad:
    fixtures: { ingresses: [${ing('broken', 'x.example.com')}] }
    assertions: [{ type: haproxy_valid, description: the config loads }]`);
    expect(messages(r)).toEqual([
      "FAIL: haproxy.cfg:3: unknown keyword 'x'",
      'pass: haproxy -c accepted the render (5 ms)',
    ]);
    expect(formatTestReport(r)).toMatch(
      /^TEST +RESULT +ASSERTIONS +TIME\nbad +FAIL +0\/1 +\d+ ms\n {2}x \[0\] haproxy_valid haproxy\.cfg \(the config loads\): haproxy\.cfg:3: unknown keyword 'x'\ngood +PASS +1\/1 +\d+ ms\n2 tests, 1 failed; 2 assertions, 1 failed$/,
    );
  });

  it('a test object replaces the _global object of the same identity; --test selects one', async () => {
    const parsed = parseTemplateConfigText(
      config(`
  t:
    fixtures: { ingresses: [${ing('a', 'override.example.com')}] }
    assertions: [{ type: equals, target: 'map:hosts.map', expected: "override.example.com be_a\\n" }]
  other:
    assertions: [{ type: contains, pattern: nothing-here }]`),
    );
    if (!parsed.ok) throw new Error('config');
    const r = await runValidationTests(parsed.config.spec, renderer, { validate, only: 't' });
    expect(r.tests.map((t) => [t.name, t.passed])).toEqual([['t', true]]);
  });
});
