import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCheckTree } from './check-tree.js';
import { HaproxyChecker, referencedEnv, runHaproxyCheck } from './haproxy-check.js';
import { emptyOutputs } from './outputs.js';
import { DEFAULT_STORAGE_DIRS } from './paths.js';
import { validateOutputs } from './validate.js';

// A stand-in "haproxy" that records its environment, cwd and arguments: the sandbox is what is
// under test here (the real binary is exercised in test/e2e/validation).
const dir = mkdtempSync(join(tmpdir(), 'haptic-fakebin-'));
const record = join(dir, 'record.txt');
const fake = join(dir, 'fake-haproxy');
writeFileSync(fake, `#!/bin/sh\n{ env; echo "cwd=$(pwd)"; echo "args=$*"; } > ${record}\nexit 0\n`);
chmodSync(fake, 0o755);
const sleeper = join(dir, 'sleepy-haproxy');
writeFileSync(sleeper, '#!/bin/sh\nsleep 30\n');
chmodSync(sleeper, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cfg =
  'global\n  daemon\nfrontend f\n  bind "${POD_IP}:80"\n  use_backend %[req.hdr(host),map(/etc/haproxy/maps/h.map,b)]\nbackend b\n';
const outputs = { ...emptyOutputs(cfg), maps: { 'h.map': 'a b\n' } };

describe('sandboxed haproxy -c', () => {
  it('finds the environment variables a config refers to', () => {
    expect(referencedEnv('bind "${POD_IP}:80"\n.if defined(FOO)\n  x $BAR')).toEqual([
      'BAR',
      'FOO',
      'POD_IP',
    ]);
  });

  it('runs with only referenced variables, in the tree, on the rewritten config', async () => {
    const tree = await writeCheckTree(outputs, DEFAULT_STORAGE_DIRS);
    try {
      process.env['HAPTIC_TEST_SECRET'] = 'do-not-leak';
      const run = await runHaproxyCheck(tree, cfg, {
        binary: fake,
        timeoutMs: 5_000,
        env: { POD_IP: '127.0.0.9', UNUSED: 'x' },
      });
      expect(run.valid).toBe(true);
      const seen = readFileSync(record, 'utf8');
      expect(seen).toContain('POD_IP=127.0.0.9');
      expect(seen).not.toContain('UNUSED');
      expect(seen).not.toContain('do-not-leak');
      expect(seen).not.toMatch(/^(HOME|KUBERNETES_SERVICE_HOST)=/m);
      expect(seen).toContain(`cwd=${tree.root}`);
      expect(seen).toContain(`args=-c -f ${tree.configPath}`);
      const written = readFileSync(tree.configPath, 'utf8');
      expect(written).toContain(`map(${tree.root}/s0/h.map,b)`);
      expect(readFileSync(join(tree.root, 's0', 'h.map'), 'utf8')).toBe('a b\n');
    } finally {
      delete process.env['HAPTIC_TEST_SECRET'];
      await tree.cleanup();
    }
    expect(existsSync(tree.root)).toBe(false);
  });

  it('kills a checker that runs past its timeout and says so', async () => {
    const checker = new HaproxyChecker({ binary: sleeper, timeoutMs: 200 }, 1);
    const result = await validateOutputs(outputs, { dirs: DEFAULT_STORAGE_DIRS, checker });
    expect(result.valid).toBe(false);
    expect(result.haproxy.timedOut).toBe(true);
    expect(result.problems[0]?.reason).toBe('haproxy -c did not finish within 200 ms');
  });

  it('never starts the checker when a directive is refused', async () => {
    rmSync(record, { force: true });
    const checker = new HaproxyChecker({ binary: fake, timeoutMs: 5_000 });
    const lua = { ...outputs, haproxyConfig: cfg.replace('daemon', 'lua-load x.lua') };
    const result = await validateOutputs(lua, { dirs: DEFAULT_STORAGE_DIRS, checker });
    expect(result.haproxy).toEqual({ ran: false, skipped: 'structural checks failed' });
    expect(result.problems.map((p) => p.directive)).toEqual(['lua-load']);
    expect(existsSync(record)).toBe(false);
  });
});

describe('check tree', () => {
  it('rewrites relative storage dirs only where they are paths (ssl the keyword stays)', async () => {
    const dirs = { mapsDir: 'maps', sslCertsDir: 'ssl', generalStorageDir: 'general' };
    const text =
      'frontend f\n  bind :443 ssl crt ssl/a.pem crt-list general/l.list\n  use_backend %[base,map(maps/m.map)]\n';
    const o = {
      ...emptyOutputs(text),
      maps: { 'm.map': '' },
      sslCertificates: { 'a.pem': 'x' },
      crtLists: { 'l.list': 'ssl/a.pem\n' },
    };
    const tree = await writeCheckTree(o, dirs);
    try {
      expect(readFileSync(tree.configPath, 'utf8')).toBe(
        `frontend f\n  bind :443 ssl crt ${tree.root}/s1/a.pem crt-list ${tree.root}/s2/l.list\n  use_backend %[base,map(${tree.root}/s0/m.map)]\n`,
      );
      expect(readFileSync(join(tree.root, 's2', 'l.list'), 'utf8')).toBe(`${tree.root}/s1/a.pem\n`);
      expect(tree.toLogical(`unable to load '${tree.root}/s1/a.pem'`)).toBe(
        "unable to load 'ssl/a.pem'",
      );
      expect(tree.outputOf(`${tree.root}/s0/m.map`)).toBe('map:m.map');
      expect(tree.outputOf(`${tree.root}/s2/l.list`)).toBe('crt-list:l.list');
    } finally {
      await tree.cleanup();
    }
  });
});
