import { describe, expect, it } from 'vitest';
import { captureIo as capture } from '#testbed/testing';
import { runCli } from '../cli.js';

describe('haptic bench flags', () => {
  it('offers --ingresses to size the shared cluster', async () => {
    const c = capture();
    expect(await runCli(['node', 'haptic', 'bench', '--help'], c.io)).toBe(0);
    expect(c.out.join('')).toContain('--ingresses <n>');
  });

  it('refuses an --ingresses that is no whole number ≥ 1 before bringing anything up (exit 2)', async () => {
    for (const bad of ['0', '1.5', 'many']) {
      const c = capture();
      expect(await runCli(['node', 'haptic', 'bench', '--ingresses', bad], c.io), bad).toBe(2);
      expect(c.err.join('')).toContain(`--ingresses must be a whole number ≥ 1, got "${bad}"`);
    }
  }, 120_000); // the bench's modules load on use: slow on a loaded machine
});
