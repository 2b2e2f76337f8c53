import { describe, expect, it } from 'vitest';
import { configLines, splitWords } from '#haproxy-config';
import { emptyOutputs, type RenderedOutputs } from './outputs.js';
import { DEFAULT_STORAGE_DIRS } from './paths.js';
import { formatProblem } from './problems.js';
import { checkStructure } from './structure.js';

const base = `global
  log stdout format raw local0
defaults
  mode http
frontend f
  bind :80
  use_backend %[req.hdr(host),lower,map(/etc/haproxy/maps/hosts.map,b)]
backend b
  server s1 127.0.0.1:8080
`;

const outputs = (cfg: string, extra: Partial<RenderedOutputs> = {}): RenderedOutputs => ({
  ...emptyOutputs(cfg),
  maps: { 'hosts.map': 'example.com b\n' },
  ...extra,
});

const check = (o: RenderedOutputs, allowed: string[] = []) =>
  checkStructure(o, { dirs: DEFAULT_STORAGE_DIRS, allowedDirectives: allowed }).map(formatProblem);

describe('splitWords', () => {
  it('groups quotes, honours escapes and stops at a comment', () => {
    expect(splitWords(`  bind "\${POD_IP}:80" ssl # comment`)).toEqual([
      'bind',
      '${POD_IP}:80',
      'ssl',
    ]);
    expect(splitWords(`http-request set-header X 'a b'\\ c`)).toEqual([
      'http-request',
      'set-header',
      'X',
      'a b c',
    ]);
    // HAProxy (2.6 and 3.0) ends the line at an unquoted `#` even inside a word.
    expect(splitWords('acl a path_beg /x#y if z')).toEqual(['acl', 'a', 'path_beg', '/x']);
    expect(splitWords('acl a path_beg /x\\#y "/p#q"')).toEqual([
      'acl',
      'a',
      'path_beg',
      '/x#y',
      '/p#q',
    ]);
  });

  it('tracks sections', () => {
    const lines = configLines(base);
    expect(lines.find((l) => l.words[0] === 'server')?.section).toBe('backend');
  });
});

describe('checkStructure', () => {
  it('accepts a sound render', () => {
    expect(check(outputs(base))).toEqual([]);
  });

  it('refuses lua-load unless allowed', () => {
    const cfg = base.replace('global\n', 'global\n  lua-load /etc/haproxy/general/x.lua\n');
    const o = outputs(cfg, { files: { 'x.lua': 'core.log(0, "x")' } });
    expect(check(o)).toEqual([
      "haproxy.cfg:2: 'lua-load /etc/haproxy/general/x.lua' is refused: it loads and runs Lua code (allow with spec.validation.allowedDirectives: [lua-load])",
    ]);
    expect(check(o, ['lua-load'])).toEqual([]);
  });

  it('refuses program sections, external checks, setenv, ssl-engine and lua actions', () => {
    const cfg =
      `${base}  option external-check\n  external-check command /bin/true\n  http-request lua.x\nprogram p\n  command /bin/sh\n`.replace(
        'global\n',
        'global\n  setenv A b\n  ssl-engine rdrand\n',
      );
    const ids = checkStructure(outputs(cfg), { dirs: DEFAULT_STORAGE_DIRS }).map(
      (p) => p.directive,
    );
    expect(ids).toEqual([
      'setenv',
      'ssl-engine',
      'external-check',
      'external-check',
      'lua',
      'program',
    ]);
  });

  it('refuses reads outside the storage dirs, and names files the render lacks', () => {
    const cfg = base
      .replace('server s1', 'errorfile 503 /etc/passwd\n  server s1')
      .replace('hosts.map', 'other.map');
    expect(check(outputs(cfg))).toEqual([
      'haproxy.cfg:7: map refers to /etc/haproxy/maps/other.map, which this render does not produce',
      'haproxy.cfg:9: errorfile reads /etc/passwd, outside the storage directories (allow with spec.validation.allowedDirectives: [external-file])',
    ]);
  });

  it('treats served files, crt-store loads and ACL files as file reads', () => {
    const cfg = base.replace(
      'server s1',
      'http-request return status 200 file /etc/shadow\n  acl bad src -f /etc/hosts\n  server s1',
    );
    const store = 'crt-store web\n  load crt /etc/haproxy/ssl/a.pem key /root/a.key\n';
    const o = outputs(`${cfg}${store}`, {
      sslCertificates: { 'a.pem': '-----BEGIN X-----\n-----END X-----\n' },
    });
    expect(check(o).map((m) => m.replace(/ \(allow with.*$/, ''))).toEqual([
      'haproxy.cfg:9: file reads /etc/shadow, outside the storage directories',
      'haproxy.cfg:10: -f reads /etc/hosts, outside the storage directories',
      'haproxy.cfg:13: key reads /root/a.key, outside the storage directories',
    ]);
    expect(check(o, ['external-file'])).toEqual([]);
  });

  it('flags control characters, unsafe names, bad PEM and crt-list entries', () => {
    const o = outputs(base, {
      maps: { 'hosts.map': 'a b\n', '../evil': 'x' },
      sslCertificates: { 'a.pem': 'not a pem' },
      crtLists: { 'l.list': '/etc/haproxy/ssl/a.pem\n/etc/haproxy/ssl/b.pem [alpn h2]\n' },
    });
    expect(check({ ...o, haproxyConfig: base.replace('mode http', 'mode http\r') })).toEqual([
      'map:../evil: unsafe file name (letters, digits, . _ - only; no folders)',
      'haproxy.cfg:4: control character \\x0d',
      'crt-list:l.list:2: crt-list entry refers to /etc/haproxy/ssl/b.pem, which this render does not produce',
      'cert:a.pem: holds no PEM block',
    ]);
  });

  it('rejects an empty config and directives before any section', () => {
    expect(check(outputs(''))).toContain('haproxy.cfg: is empty');
    expect(check(outputs(`  maxconn 10\n${base}`))).toContain(
      "haproxy.cfg:1: 'maxconn' appears before any section",
    );
  });
});
