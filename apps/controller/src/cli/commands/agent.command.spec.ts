import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s) }, out, err };
}

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
});
