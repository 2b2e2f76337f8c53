import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureIo as capture } from '#testbed/testing';
import { runCli } from '../cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hns-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('haptic node-sim', () => {
  it('exits 2 without a usable kubeconfig', async () => {
    const c = capture();
    expect(await runCli(['node', 'haptic', 'node-sim'], c.io)).toBe(2);
    const missing = capture();
    expect(
      await runCli(['node', 'haptic', 'node-sim', '--kubeconfig', join(dir, 'absent')], missing.io),
    ).toBe(2);
    expect(missing.err.join('')).toMatch(/not found/);
  });

  it('exits 2 on a bad address range or image table', async () => {
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
    const range = capture();
    expect(
      await runCli(
        [
          'node',
          'haptic',
          'node-sim',
          '--kubeconfig',
          kubeconfig,
          '--address-range',
          '10.0.0.1-10.0.0.9',
        ],
        range.io,
      ),
    ).toBe(2);
    expect(range.err.join('')).toMatch(/127\.0\.0\.0\/8/);
    const table = join(dir, 'table.yaml');
    writeFileSync(table, '- image: foo\n  runner: docker\n');
    const bad = capture();
    expect(
      await runCli(
        ['node', 'haptic', 'node-sim', '--kubeconfig', kubeconfig, '--image-table', table],
        bad.io,
      ),
    ).toBe(2);
    expect(bad.err.join('')).toMatch(/runner/);
  });
});
