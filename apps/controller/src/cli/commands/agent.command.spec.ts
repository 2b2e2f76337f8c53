import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureIo as capture } from '#testbed/testing';
import { runCli } from '../cli.js';

describe('haptic agent', () => {
  it('prints help', async () => {
    const c = capture();
    expect(await runCli(['node', 'haptic', 'agent', '--help'], c.io)).toBe(0);
    expect(c.out.join('')).toContain('--haproxy-bin');
    expect(c.out.join('')).toContain('--password-file');
  });

  it('refuses to start without credentials (exit 2)', async () => {
    const c = capture();
    expect(
      await runCli(['node', 'haptic', 'agent', '--config-dir', '/nonexistent-dir'], c.io),
    ).toBe(2);
    expect(c.err.join('')).toMatch(/credentials required/);
  });

  it('refuses mixed credential flags and a bad port (exit 2)', async () => {
    const c = capture();
    const args = [
      'node',
      'haptic',
      'agent',
      '--config-dir',
      'x',
      '--userlist',
      'u',
      '--username',
      'a',
    ];
    expect(await runCli(args, c.io)).toBe(2);
    expect(
      await runCli(
        ['node', 'haptic', 'agent', '--config-dir', 'x', '--userlist', 'u', '--port', 'abc'],
        c.io,
      ),
    ).toBe(2);
  });

  it('--prepare lays out the config dir for an HAProxy the agent attaches to, needing no credentials', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-prepare-'));
    try {
      const boot = join(dir, 'boot.cfg');
      writeFileSync(boot, '# _version=7\nglobal\ndefaults\n  mode http\n');
      const socket = join(dir, 'shared', 'master.sock');
      const cfgDir = join(dir, 'cfg');
      const c = capture();
      const args = ['--config-dir', cfgDir, '--master-socket', socket, '--bootstrap-config', boot];
      expect(await runCli(['node', 'haptic', 'agent', '--prepare', ...args], c.io)).toBe(0);
      // The bootstrap under version 1 (its own metadata dropped), and the agent's fragment.
      expect(readFileSync(join(cfgDir, 'haproxy.cfg'), 'utf8')).toBe(
        '# _version=1\nglobal\ndefaults\n  mode http\n',
      );
      const fragment = readFileSync(join(cfgDir, 'run', 'agent.cfg'), 'utf8');
      expect(fragment).toContain('  master-worker\n');
      expect(fragment).toContain(
        `stats socket ${join(cfgDir, 'run', 'admin.sock')} mode 600 level admin`,
      );
      // A second run keeps the configuration a previous HAProxy was given.
      writeFileSync(join(cfgDir, 'haproxy.cfg'), '# _version=5\nglobal\n');
      expect(await runCli(['node', 'haptic', 'agent', '--prepare', ...args], c.io)).toBe(0);
      expect(readFileSync(join(cfgDir, 'haproxy.cfg'), 'utf8')).toBe('# _version=5\nglobal\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
