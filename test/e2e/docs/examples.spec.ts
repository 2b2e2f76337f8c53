import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Every configuration example of the documentation passes the real `haptic config check` and its
// embedded tests pass the real `haptic validate` (with haproxy -c), as the docs promise.

const root = fileURLToPath(new URL('../../../', import.meta.url));
const examples = readdirSync(join(root, 'docs/examples')).filter((f) => f.endsWith('.yaml'));

function haptic(...args: string[]): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, [join(root, 'bin/haptic.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, output: r.stdout + r.stderr };
}

describe('documentation examples', () => {
  it('there are examples to check', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('%s passes haptic config check and haptic validate', (file) => {
    const path = join('docs/examples', file);
    const check = haptic('config', 'check', '-f', path);
    expect(check, check.output).toMatchObject({ status: 0 });
    const validate = haptic('validate', '-f', path, '-o', 'json');
    expect(validate, validate.output).toMatchObject({ status: 0 });
    const report = JSON.parse(validate.output) as { tests: unknown[] };
    expect(report.tests.length).toBeGreaterThan(0);
  });
});
