import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeForMajors } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../../apps/controller/src/cli/cli.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../fixtures/validation/${name}`, import.meta.url));

async function haptic(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['node', 'haptic', ...argv], {
    out: (t) => (out += t.endsWith('\n') ? t : `${t}\n`),
    err: (t) => (err += t.endsWith('\n') ? t : `${t}\n`),
  });
  return { code, out, err };
}

interface JsonReport {
  passed: boolean;
  tests: {
    name: string;
    passed: boolean;
    assertions: { type: string; passed: boolean; message: string }[];
  }[];
}

describeForMajors(['2.6', '3.0'], 'haptic validate and haptic render', (haproxy) => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-cli-e2e-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every assertion type, passing and failing, with the failure messages (-o json, exit 1)', async () => {
    const r = await haptic(
      'validate',
      '-f',
      fixture('showcase.yaml'),
      '-o',
      'json',
      '--haproxy-bin',
      haproxy.bin,
    );
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out) as JsonReport;
    const byName = new Map(report.tests.map((t) => [t.name, t]));
    for (const t of report.tests)
      expect([t.name, t.passed]).toEqual([t.name, t.name.startsWith('pass-')]);
    const types = [
      'haproxy_valid',
      'contains',
      'not_contains',
      'equals',
      'match_count',
      'match_order',
      'deterministic',
      'rendering_error',
      'jsonpath',
    ];
    for (const type of types) {
      expect(byName.get(`pass-${type}`)?.passed).toBe(true);
      // The real renderer cannot be made non-deterministic (see showcase.yaml).
      if (type !== 'deterministic') expect(byName.get(`fail-${type}`)?.passed).toBe(false);
    }
    const msg = (name: string) => byName.get(name)?.assertions.find((a) => !a.passed)?.message;
    expect(msg('fail-contains')).toBe(
      '/^api\\.example\\.com / not found in map:hosts.map (1 line)',
    );
    expect(msg('fail-not_contains')).toBe(
      '/backend be_default_web/ matched "backend be_default_web" at line 14 of haproxy.cfg',
    );
    expect(msg('fail-equals')).toBe(
      'map:hosts.map differs from the expected text at line 1: expected "web.example.com be_other", got "web.example.com be_default_web"',
    );
    expect(msg('fail-match_count')).toBe(
      '/^\\s+server / matched 1 time in haproxy.cfg, expected 2',
    );
    expect(msg('fail-match_order')).toBe(
      'pattern 2 /^frontend http/ not found after /^backend be_default_web/ (line 14) in haproxy.cfg; it occurs earlier, at line 8',
    );
    expect(msg('fail-rendering_error')).toBe(
      'the render succeeded, but an error containing "spec.rules is required" was expected',
    );
    expect(msg('fail-jsonpath')).toBe('resources.ingresses.size is 1, expected 2');
    expect(msg('fail-haproxy_valid')).toMatch(
      /^haproxy\.cfg:13 \(probably from template "haproxy\.cfg" line 13\): .*'999'/,
    );
    expect(byName.get('pass-rendering_error')?.assertions[0]?.message).toMatch(
      /spec\.rules is required/,
    );
  });

  it('prints a pass/fail table, runs one test with --test, refuses an unknown test', async () => {
    const all = await haptic(
      'validate',
      '-f',
      fixture('showcase.yaml'),
      '--haproxy-bin',
      haproxy.bin,
      '--workers',
      '3',
    );
    expect(all.out).toMatch(/^TEST +RESULT +ASSERTIONS +TIME\n/);
    expect(all.out).toMatch(/\n18 tests, 9 failed; 20 assertions, 9 failed\n$/);
    const one = await haptic(
      'validate',
      '-f',
      fixture('showcase.yaml'),
      '--test',
      'pass-haproxy_valid',
      '--haproxy-bin',
      haproxy.bin,
    );
    expect(one.code).toBe(0);
    expect(one.out).toMatch(/pass-haproxy_valid +PASS +1\/1/);
    expect(one.out).toContain('1 test, 0 failed');
    const none = await haptic('validate', '-f', fixture('showcase.yaml'), '--test', 'nope');
    expect(none.code).toBe(2);
    expect(none.err).toContain('no validation test named nope');
  });

  it('names the snippet and its line for a line haproxy -c rejects', async () => {
    const r = await haptic(
      'validate',
      '-f',
      fixture('broken-snippet.yaml'),
      '--haproxy-bin',
      haproxy.bin,
    );
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /haproxy\.cfg:15 \(probably from template "backend-defaults" line 5\): .*respnse-timeout/,
    );
  });

  it('names the snippet and its line for a Liquid error (exit 2)', async () => {
    const r = await haptic(
      'validate',
      '-f',
      fixture('broken-liquid.yaml'),
      '--haproxy-bin',
      haproxy.bin,
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      'backend-pool:3:1: tag {% for ing in resources.ingresses %} not closed',
    );
  });

  it('refuses lua-load before haproxy -c runs, and runs it once the config allows it', async () => {
    const marker = join(dir, 'ran');
    const recorder = join(dir, 'recording-haproxy');
    writeFileSync(recorder, `#!/bin/sh\necho "$@" > ${marker}\nexec ${haproxy.bin} "$@"\n`);
    chmodSync(recorder, 0o755);
    const refused = await haptic(
      'validate',
      '-f',
      fixture('lua-load.yaml'),
      '--haproxy-bin',
      recorder,
    );
    expect(refused.code).toBe(1);
    expect(refused.out).toContain(
      `haproxy.cfg:3 (probably from template "lua-hello" line 1): 'lua-load /etc/haproxy/general/hello.lua' is refused: it loads and runs Lua code (allow with spec.validation.allowedDirectives: [lua-load])`,
    );
    expect(existsSync(marker)).toBe(false);
    const allowed = await haptic(
      'validate',
      '-f',
      fixture('lua-load-allowed.yaml'),
      '--haproxy-bin',
      recorder,
    );
    expect(allowed.out).toContain('1 test, 0 failed');
    expect(allowed.code).toBe(0);
    expect(readFileSync(marker, 'utf8')).toMatch(/^-c -f .*haproxy\.cfg$/m);
  });

  it('renders offline from manifest files and folders, printing or writing every output', async () => {
    const printed = await haptic(
      'render',
      '-f',
      fixture('showcase.yaml'),
      '--resources',
      fixture('resources'),
      '--validate',
      '--haproxy-bin',
      haproxy.bin,
    );
    expect(printed.code).toBe(0);
    expect(printed.out).toContain(
      '# ==> map:hosts.map <==\nweb.example.com be_default_web\napi.example.com be_team-b_api\n',
    );
    expect(printed.err).toContain('3 objects (ingresses=2; 1 not watched)');
    expect(printed.err).toMatch(/valid \(haproxy -c \d+ ms\)/);
    const out = join(dir, 'out');
    const written = await haptic(
      'render',
      '-f',
      fixture('lua-load-allowed.yaml'),
      '--resources',
      fixture('resources/ingresses.yaml'),
      fixture('resources/team-b'),
      '-o',
      out,
    );
    expect(written.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['files', 'haproxy.cfg']);
    expect(readFileSync(join(out, 'files', 'hello.lua'), 'utf8')).toContain(
      'core.register_service',
    );
    const bad = await haptic(
      'render',
      '-f',
      fixture('showcase.yaml'),
      '--resources',
      join(dir, 'missing'),
    );
    expect(bad.code).toBe(2);
  });
});
