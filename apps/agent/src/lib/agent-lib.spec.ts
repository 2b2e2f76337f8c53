import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentCredentialsError } from '../agent.errors.js';
import { parseHaproxyVersion, hasSyncReload } from '../haproxy/haproxy-version.js';
import { stripMeta, versionOf, withVersion } from './config-file.js';
import { Credentials, parseUserlist } from './credentials.js';
import { Mutex } from './mutex.js';
import { Reloader } from './reloader.js';
import { parseShowMap } from './runtime-maps.js';
import { crtListLine, parseCrtList } from './storage.js';

describe('configuration file metadata', () => {
  it('puts the version on the first line and strips client-sent metadata', () => {
    const body = '# _version=7\n# _md5hash=abc\nglobal\n  daemon\n';
    expect(stripMeta(body)).toBe('global\n  daemon\n');
    expect(withVersion(body, 9)).toBe('# _version=9\nglobal\n  daemon\n');
    expect(versionOf(withVersion(body, 9))).toBe(9);
    expect(versionOf('global\n')).toBe(0);
  });
});

describe('HAProxy version', () => {
  it('reads `haproxy -v` and picks the reload dialect', () => {
    const v26 = parseHaproxyVersion(
      'HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/\n',
    );
    expect(v26).toEqual({ full: '2.6.12-1+deb12u4', major: 2, minor: 6 });
    expect(hasSyncReload(v26)).toBe(false);
    expect(hasSyncReload(parseHaproxyVersion('HAProxy version 3.0.11-1 2025/06/01'))).toBe(true);
    expect(hasSyncReload(parseHaproxyVersion('HA-Proxy version 2.7.1 2022/12/19'))).toBe(true);
    expect(() => parseHaproxyVersion('nginx version 1.2')).toThrow();
  });
});

describe('credentials', () => {
  it('parses userlists and refuses hashed passwords', () => {
    expect(
      parseUserlist('userlist c\n  user a insecure-password x\n  user b insecure-password y\n'),
    ).toEqual(
      new Map([
        ['a', 'x'],
        ['b', 'y'],
      ]),
    );
    expect(() => parseUserlist('user a password $5$abc')).toThrow(AgentCredentialsError);
  });

  it('re-reads the password file when it changes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cred-'));
    const file = join(dir, 'pw');
    writeFileSync(file, 'one\n');
    const c = new Credentials({ kind: 'password-file', username: 'u', file });
    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    expect(c.verify(basic('u', 'one'))).toBe('u');
    expect(c.verify(basic('u', 'two'))).toBeUndefined();
    writeFileSync(file, 'two-longer\n');
    expect(c.verify(basic('u', 'one'))).toBeUndefined();
    expect(c.verify(basic('u', 'two-longer'))).toBe('u');
    expect(c.verify(undefined)).toBeUndefined();
    rmSync(dir, { recursive: true });
  });
});

describe('Reloader', () => {
  it('coalesces requests inside the delay into one reload and one id', async () => {
    let runs = 0;
    const r = new Reloader(
      () => {
        runs++;
        return Promise.resolve({ ok: true, response: 'fine', workerPid: 10 + runs });
      },
      new Mutex(),
      30,
    );
    const a = r.request();
    const b = r.request();
    expect(b.id).toBe(a.id);
    expect(a.id).toMatch(/^\d{4}-\d{2}-\d{2}-1$/);
    const done = await r.now();
    expect(done.id).toBe(a.id);
    expect(done.status).toBe('succeeded');
    expect(runs).toBe(1);
    const c = r.request();
    expect(c.id).not.toBe(a.id);
    await r.close();
    expect(r.get(c.id)?.status).toBe('succeeded');
    expect(runs).toBe(2);
  });

  it('continues the history of a previous run (no id handed out twice)', () => {
    const today = new Date().toISOString().slice(0, 10);
    const prev = [
      { id: `${today}-4`, status: 'succeeded' as const },
      { id: `${today}-5`, status: 'in_progress' as const },
    ];
    const r = new Reloader(
      () => Promise.resolve({ ok: true, response: '' }),
      new Mutex(),
      1000,
      () => {},
      prev,
    );
    expect(r.get(`${today}-5`)?.status).toBe('failed');
    expect(r.request().id).toBe(`${today}-6`);
    void r.close();
  });

  it('records a failed reload with HAProxy output', async () => {
    const r = new Reloader(
      () => Promise.resolve({ ok: false, response: '[ALERT] bad' }),
      new Mutex(),
      0,
    );
    const rec = await r.now();
    expect(rec).toMatchObject({ status: 'failed', response: '[ALERT] bad' });
    expect(typeof rec.reload_timestamp).toBe('number');
  });
});

describe('runtime and storage parsers', () => {
  it('parses show map', () => {
    const text =
      "# id (file) description\n2 (maps/hosts.map) pattern loaded from file 'maps/hosts.map' used by map at file 'haproxy.cfg' line 12. curr_ver=0 next_ver=0 entry_cnt=3\n\n";
    expect(parseShowMap(text)).toEqual([
      {
        id: '2',
        file: 'maps/hosts.map',
        description: expect.stringContaining('pattern loaded') as string,
      },
    ]);
  });

  it('parses and prints crt-list lines', () => {
    const entries = parseCrtList(
      '# c\nssl/a.pem\nssl/b.pem [alpn h2 ssl-min-ver TLSv1.2] b.example *.b.example\n',
    );
    expect(entries).toEqual([
      { file: 'ssl/a.pem', line_number: 2 },
      {
        file: 'ssl/b.pem',
        line_number: 3,
        ssl_bind_config: 'alpn h2 ssl-min-ver TLSv1.2',
        sni_filter: ['b.example', '*.b.example'],
      },
    ]);
    expect(crtListLine(entries[1]!)).toBe(
      'ssl/b.pem [alpn h2 ssl-min-ver TLSv1.2] b.example *.b.example',
    );
  });
});
