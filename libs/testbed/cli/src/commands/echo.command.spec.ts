import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';

function capture(): {
  io: { out: (t: string) => void; err: (t: string) => void };
  out: string[];
  err: string[];
} {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t) => out.push(t), err: (t) => err.push(t) }, out, err };
}

describe('haptic echo', () => {
  it('exits 2 on an invalid port', async () => {
    const c = capture();
    expect(await runCli(['node', 'haptic', 'echo', '--port', 'eighty'], c.io)).toBe(2);
    expect(c.err.join('')).toMatch(/port must be a port number/);
  });

  it('documents its flags in --help', async () => {
    const c = capture();
    expect(await runCli(['node', 'haptic', 'echo', '--help'], c.io)).toBe(0);
    expect(c.out.join('')).toMatch(/--grpc/);
    expect(c.out.join('')).toMatch(/--address <ip>/);
  });
});
