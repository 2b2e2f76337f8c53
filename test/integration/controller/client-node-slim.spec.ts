// The `haptic` command loads client-node's KubeConfig without its generated API clients (see
// apps/controller/src/cli/client-node-hooks.ts): runs bin/haptic.js (the built controller, as
// npm test builds it first) with a resolve hook of its own that records every module loaded.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#testbed/stack';

const dir = mkdtempSync(join(tmpdir(), 'haptic-client-node-slim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loaded modules of `haptic run` up to its kubeconfig check (exit 2: the file is missing). */
function modulesOfRun(): string[] {
  const out = join(dir, 'modules.txt');
  writeFileSync(out, '');
  writeFileSync(
    join(dir, 'record-hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(out, r.url + '\\n');
  return r;
}
`,
  );
  writeFileSync(
    join(dir, 'record.mjs'),
    `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(join(dir, 'record-hooks.mjs')).href)}, { data: { out: ${JSON.stringify(out)} } });
`,
  );
  const r = spawnSync(
    process.execPath,
    [
      `--import=${pathToFileURL(join(dir, 'record.mjs')).href}`,
      join(repoRoot(), 'bin/haptic.js'),
      'run',
      '--kubeconfig',
      join(dir, 'missing-kubeconfig'),
      '--config',
      'haptic',
    ],
    { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '' } },
  );
  expect(r.stderr).toContain('does not exist');
  expect(r.status).toBe(2);
  return readFileSync(out, 'utf8').split('\n').filter(Boolean);
}

describe('haptic loads client-node without its generated API clients', () => {
  it('loads KubeConfig and the two generated files it needs, no API client, no model', () => {
    const loaded = modulesOfRun();
    const cn = loaded.filter((u) => u.includes('/@kubernetes/client-node/dist/'));
    expect(cn.some((u) => u.endsWith('/client-node/dist/config.js'))).toBe(true);
    expect(cn.some((u) => u.endsWith('/client-node/dist/gen/configuration.js'))).toBe(true);
    expect(cn.some((u) => u.endsWith('/client-node/dist/gen/servers.js'))).toBe(true);
    expect(cn.filter((u) => /\/dist\/(index|api)\.js$|\/dist\/gen\/index\.js$/.test(u))).toEqual(
      [],
    );
    expect(cn.filter((u) => /\/gen\/(apis|models|types)\//.test(u))).toEqual([]);
  });
});
