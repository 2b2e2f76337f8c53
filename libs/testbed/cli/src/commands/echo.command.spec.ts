import { describe, expect, it } from 'vitest';
import { captureIo as capture } from '#testbed/testing';
import { runCli } from '../cli.js';

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
