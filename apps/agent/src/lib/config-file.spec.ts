import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigFile, WRITE_BEHIND_MS } from './config-file.js';
import { applySectionEdits } from './section-index.js';
import { persistServer, serverEdit } from './runtime-servers.js';

const CFG = [
  '# _version=4',
  'global',
  '  daemon',
  '',
  'defaults',
  '  mode http',
  '',
  'backend be_a',
  '  balance roundrobin',
  '  server a1 10.0.0.1:80 weight 1',
  '  server a2 10.0.0.2:80 disabled',
  '',
  'listen stats',
  '  bind :8404',
  '',
  'backend be_b',
  '  server b1 10.0.1.1:8080',
  '',
].join('\n');

const writtenBehind = () => new Promise((r) => setTimeout(r, WRITE_BEHIND_MS + 10));

describe('ConfigFile runtime write-through', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'haptic-config-file-'));
    path = join(dir, 'haproxy.cfg');
    writeFileSync(path, CFG);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('queues server changes, answers reads with them applied and writes them together, after the request', async () => {
    const config = new ConfigFile(path);
    persistServer(config, 'be_a', 'a1', { address: '10.9.9.9', port: 81 });
    persistServer(config, 'be_b', 'b1', { maint: true });
    persistServer(config, 'be_a', 'a2', { maint: false, weight: 5 });
    persistServer(config, 'be_a', 'a3', { address: '10.0.0.3', port: 80, params: ['check'] });
    expect(readFileSync(path, 'utf8')).toBe(CFG); // nothing written while the request runs
    await writtenBehind();
    const disk = readFileSync(path, 'utf8');
    expect(disk).toContain('  server a1 10.9.9.9:81 weight 1\n');
    expect(disk).toContain('  server a2 10.0.0.2:80 weight 5\n  server a3 10.0.0.3:80 check\n');
    expect(disk).toContain('  server b1 10.0.1.1:8080 disabled\n');
    expect(disk.startsWith('# _version=4\n')).toBe(true);
    expect(config.content).toBe(disk);
    expect(config.version).toBe(4);
  });

  it('applies queued changes before the text is read (same turn)', () => {
    const config = new ConfigFile(path);
    persistServer(config, 'be_b', 'b1', { remove: true });
    expect(config.content).not.toContain('server b1');
    expect(readFileSync(path, 'utf8')).not.toContain('server b1'); // reading flushed the file too
  });

  it('a new configuration supersedes the queued changes', async () => {
    const config = new ConfigFile(path);
    persistServer(config, 'be_a', 'a1', { address: '10.9.9.9' });
    config.write('global\n  daemon\nbackend be_a\n  server a1 10.5.5.5:80\n', 5);
    await writtenBehind();
    expect(readFileSync(path, 'utf8')).toBe(
      '# _version=5\nglobal\n  daemon\nbackend be_a\n  server a1 10.5.5.5:80\n',
    );
  });

  it('a write built before a runtime change supersedes it; one built after is written over', async () => {
    const config = new ConfigFile(path);
    persistServer(config, 'be_a', 'a1', { address: '10.1.1.1' }); // before: the body has it or not
    let release!: () => void;
    const checked = new Promise<void>((r) => (release = r));
    const pushed = config.writeSince(async (write) => {
      await checked; // the new body's haproxy -c
      write('global\nbackend be_a\n  server a1 10.0.0.1:80\n  server a2 10.0.0.2:80\n', 5);
    });
    persistServer(config, 'be_a', 'a2', { address: '10.2.2.2' }); // during the check: kept
    await writtenBehind();
    release();
    await pushed;
    expect(readFileSync(path, 'utf8')).toBe(
      '# _version=5\nglobal\nbackend be_a\n  server a1 10.0.0.1:80\n  server a2 10.2.2.2:80\n',
    );
  });

  it('reports a failed write from the queued flush and writes the change at the next flush', async () => {
    const errors: unknown[] = [];
    const config = new ConfigFile(path, (e) => errors.push(e));
    const tmp = `${path}.tmp-${process.pid}`;
    mkdirSync(tmp); // the atomic write's temporary file cannot be made (even by root)
    persistServer(config, 'be_a', 'a1', { weight: 9 });
    await writtenBehind();
    expect(errors).toHaveLength(1);
    expect(readFileSync(path, 'utf8')).toBe(CFG);
    expect(config.content).toContain('server a1 10.0.0.1:80 weight 9'); // held, not lost
    rmSync(tmp, { recursive: true });
    config.flush();
    expect(readFileSync(path, 'utf8')).toContain('server a1 10.0.0.1:80 weight 9');
  });
});

describe('applySectionEdits', () => {
  const change = fc.record(
    {
      address: fc.constantFrom('10.0.0.7', 'fd00::1'),
      port: fc.integer({ min: 1, max: 65535 }),
      maint: fc.boolean(),
      weight: fc.integer({ min: 0, max: 256 }),
      remove: fc.boolean(),
      params: fc.constantFrom(['check'], [] as string[]),
    },
    { requiredKeys: [] },
  );
  const edit = fc.record({
    backend: fc.constantFrom('be_a', 'be_b', 'stats', 'be_missing'),
    name: fc.constantFrom('a1', 'a2', 'a3', 'b1', 'b2'),
    change,
  });

  it('gives the text the edits give one by one on the whole file', () => {
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 12 }), (edits) => {
        let oneByOne = CFG;
        for (const e of edits) {
          // the write-through before edits were batched: the whole file each time
          oneByOne = serverEdit(oneByOne, e.backend, e.name, e.change);
        }
        const batched = applySectionEdits(
          CFG,
          edits.map((e) => ({
            backend: e.backend,
            edit: (s: string) => serverEdit(s, e.backend, e.name, e.change),
          })),
        );
        expect(batched).toBe(oneByOne);
      }),
    );
  });

  it('a ConfigFile kept across flushes gives the same text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'haptic-config-index-'));
    try {
      fc.assert(
        fc.property(fc.array(fc.tuple(edit, fc.boolean()), { maxLength: 12 }), (steps) => {
          const path = join(dir, 'haproxy.cfg');
          writeFileSync(path, CFG);
          const config = new ConfigFile(path);
          let oneByOne = CFG;
          for (const [e, flushNow] of steps) {
            persistServer(config, e.backend, e.name, e.change);
            oneByOne = serverEdit(oneByOne, e.backend, e.name, e.change);
            if (flushNow) config.flush();
          }
          expect(config.content).toBe(oneByOne);
          expect(readFileSync(path, 'utf8')).toBe(oneByOne);
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
