import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'haptic-haproxy-cmd-'));
const fake = join(tmp, 'haproxy');
writeFileSync(
  fake,
  '#!/bin/sh\necho "HAProxy version 3.0.11-1+deb13u4 2026/10/15 - https://haproxy.org/"\n',
);
chmodSync(fake, 0o755);

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['node', 'haptic', ...args], {
    out: (t) => (out += t),
    err: (t) => (err += t),
  });
  return { code, out, err };
}

describe('haptic haproxy', () => {
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('reports the binary chosen by --haproxy-bin with its version and dialect', async () => {
    const { code, out } = await run(['haproxy', '--haproxy-bin', fake, '-o', 'json']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      bin: fake,
      source: 'flag',
      version: '3.0.11-1+deb13u4',
      dialect: { reload: 'synchronous', customPayloadTerminator: true },
    });
  });

  it('exits 2 with a clear message when --haproxy-bin is not executable', async () => {
    const { code, err } = await run(['haproxy', '--haproxy-bin', join(tmp, 'nope')]);
    expect(code).toBe(2);
    expect(err).toContain("--haproxy-bin names '");
  });
});
