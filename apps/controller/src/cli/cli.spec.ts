import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './cli.js';

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../../../test/fixtures/config/${name}`, import.meta.url));

async function run(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['node', 'haptic', ...args], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('haptic CLI', () => {
  it('prints help listing the commands, exit 0', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Usage: haptic/);
    expect(r.out).toMatch(/config/);
    expect(r.out).toMatch(/version/);
  });

  it('documents --module in `haptic --help` and `haptic run --help`', async () => {
    expect((await run('--help')).out).toContain('haptic run --module <path|package>');
    const r = await run('run', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--module <path\|package>\s+load a Nest module/);
    expect(r.out).toContain('repeatable');
    expect(r.out).toMatch(/Exit codes:.*2 invalid flags, no Kubernetes credentials/s);
  });

  it('prints the version, also as JSON', async () => {
    expect((await run('version')).out).toMatch(/^haptic \d+\.\d+\.\d+/);
    expect(JSON.parse((await run('version', '-o', 'json')).out)).toMatchObject({
      version: expect.any(String),
    });
  });

  it('exits 2 on an unknown command or a missing option', async () => {
    expect((await run('no-such-command')).code).toBe(2);
    expect((await run('config', 'check')).code).toBe(2);
  });

  it('config check: a valid config exits 0 with a one-line summary', async () => {
    const r = await run('config', 'check', '-f', fixture('minimal.yaml'));
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.out).toMatch(/^valid: haptic\/haptic: 2 watched resources/);
  });

  it('config check: five mistakes exit 2 and name all five paths', async () => {
    const r = await run('config', 'check', '-f', fixture('five-mistakes.yaml'));
    expect(r.code).toBe(2);
    for (const path of [
      'spec.credentialsSecretRef',
      'spec.haproxyConfig',
      'spec.controller.reconcile.debounce',
      'spec.watchedResources.ingresses.indexBy[0]',
      'spec.watchedResources.ingresses.store',
    ]) {
      expect(r.err).toContain(`  ${path}: `);
    }
    expect(r.err).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
  });

  it('config check -o json gives machines every problem', async () => {
    const r = await run('config', 'check', '-f', fixture('five-mistakes.yaml'), '-o', 'json');
    expect(r.code).toBe(2);
    const body = JSON.parse(r.out) as { valid: boolean; problems: { path: string }[] };
    expect(body.valid).toBe(false);
    expect(body.problems).toHaveLength(5);
  });

  it('config check: a missing file exits 2 with a clear reason', async () => {
    const r = await run('config', 'check', '-f', '/nonexistent/config.yaml');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no such file/);
  });
});
