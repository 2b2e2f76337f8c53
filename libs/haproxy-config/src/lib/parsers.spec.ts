import { describe, expect, it } from 'vitest';
import { backendServers, parseSections, setServerLine, splitAddress } from './config-sections.js';
import { parseMapFile, printMapFile } from './map-file.js';
import { adminState, operationalState, parseServersState } from './servers-state.js';
import { parseShowProc } from './show-proc.js';

describe('parseServersState', () => {
  it('keys rows by header names, whatever the column order', () => {
    const text =
      '1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_port srv_fqdn\n' +
      '3 be_app 1 s1 127.0.0.1 2 0 50 8080 -\n3 be_app 2 s2 10.0.0.2 0 1 1 80 -\n';
    const rows = parseServersState(text);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      srv_name: 's1',
      srv_addr: '127.0.0.1',
      srv_port: '8080',
      srv_fqdn: '',
    });
    expect(operationalState(rows[0]!.srv_op_state)).toBe('up');
    expect(adminState(rows[1]!.srv_admin_state)).toBe('maint');
    expect(adminState('8')).toBe('drain');
    expect(adminState('0')).toBe('ready');
  });
});

describe('parseShowProc', () => {
  it('reads master, current and old workers', () => {
    const text =
      '#<PID>          <type>          <reloads>       <uptime>        <version>\n' +
      '6754            master          1 [failed: 1]   0d00h00m04s     2.6.12\n# workers\n' +
      '6855            worker          0               0d00h00m00s     2.6.12\n# old workers\n' +
      '6757            worker          1               0d00h00m04s     2.6.12\n# programs\n\n';
    const t = parseShowProc(text);
    expect(t.master).toMatchObject({ pid: 6754, failed: 1, reloads: 1 });
    expect(t.workers.map((w) => w.pid)).toEqual([6855]);
    expect(t.oldWorkers.map((w) => w.pid)).toEqual([6757]);
  });
});

describe('map files', () => {
  it('parses key and rest-of-line value, skipping comments', () => {
    const entries = parseMapFile('# c\n\na.example.com be_a\nb  be b\n');
    expect(entries).toEqual([
      { key: 'a.example.com', value: 'be_a' },
      { key: 'b', value: 'be b' },
    ]);
    expect(printMapFile(entries)).toBe('a.example.com be_a\nb be b\n');
  });
});

describe('config sections', () => {
  const cfg =
    '# _version=3\nglobal\n  daemon\nbackend be_a\n  balance roundrobin\n  server s1 127.0.0.1:8080 check\n\nfrontend fe\n  bind :80\n';
  it('locates sections and servers', () => {
    expect(parseSections(cfg).map((s) => `${s.type}:${s.name}`)).toEqual([
      'global:',
      'backend:be_a',
      'frontend:fe',
    ]);
    expect(backendServers(cfg, 'be_a')).toEqual([
      { name: 's1', address: '127.0.0.1', port: 8080, params: ['check'], line: 5 },
    ]);
    expect(backendServers(cfg, 'nope')).toBeUndefined();
  });
  it('replaces, appends and deletes server lines', () => {
    const added = setServerLine(cfg, 'be_a', 's2', 'server s2 10.0.0.1:80')!;
    expect(backendServers(added, 'be_a')!.map((s) => s.name)).toEqual(['s1', 's2']);
    expect(added).toContain('  server s2 10.0.0.1:80\n\nfrontend fe');
    const replaced = setServerLine(added, 'be_a', 's1', 'server s1 127.0.0.1:9090')!;
    expect(backendServers(replaced, 'be_a')![0]!.port).toBe(9090);
    const removed = setServerLine(replaced, 'be_a', 's1', undefined)!;
    expect(backendServers(removed, 'be_a')!.map((s) => s.name)).toEqual(['s2']);
  });
  it('splits v4, v6 and bare addresses', () => {
    expect(splitAddress('[::1]:80')).toEqual({ address: '::1', port: 80 });
    expect(splitAddress('10.0.0.1')).toEqual({ address: '10.0.0.1', port: undefined });
  });
});
