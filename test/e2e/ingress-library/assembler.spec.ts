import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runNode, tempBase } from './library.js';

// scripts/assemble-library.mjs: one resource from the library's files, within a size budget.

describe('assemble-library', () => {
  let base: string;
  beforeAll(async () => {
    base = await tempBase();
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  it('puts every file where the resource expects it and stays within the default budget', async () => {
    const out = join(base, 'lib.yaml');
    const run = await runNode(['scripts/assemble-library.mjs', '--out', out, '--check']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/haptic-ingress: \d+ bytes \(\d+\.\d KiB of a 512 KiB budget\)/);
    const r = parse(await readFile(out, 'utf8')) as {
      spec: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(r.spec['maps'] ?? {})).toEqual(['exact.map', 'prefix.map']);
    expect(Object.keys(r.spec['templateSnippets'] ?? {})).toContain('backends-500-ingress');
    expect(Object.keys(r.spec['files'] ?? {})).toContain('503.http');
    expect(Object.keys(r.spec['validationTests'] ?? {}).length).toBeGreaterThanOrEqual(40);
  });

  it('fails over budget and leaves the tests out on request', async () => {
    const over = await runNode(['scripts/assemble-library.mjs', '--budget', '20000']);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('over budget by');
    const lean = await runNode(['scripts/assemble-library.mjs', '--without-tests']);
    expect(lean.code).toBe(0);
    expect(parse(lean.stdout)).not.toHaveProperty('spec.validationTests');
  });

  it('refuses a test name defined twice', async () => {
    const lib = await mkdtemp(join(base, 'lib-'));
    await cp(join(ROOT, 'helm/haptic/libraries/ingress'), lib, { recursive: true });
    await writeFile(
      join(lib, 'tests', '99-dup.yaml'),
      'hosts-exact-and-wildcard: {assertions: []}\n',
    );
    const run = await runNode(['scripts/assemble-library.mjs', '--library', lib]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('validation test hosts-exact-and-wildcard is defined twice');
  });
});
