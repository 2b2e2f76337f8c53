import { describe, expect, it } from 'vitest';
import { partPassed, partitionConfig, toWholeLines, type CheckPart } from './partition.js';

const head = `# generated
global
  log stdout format raw local0
defaults web
  mode http
  timeout client 1s
frontend http
  bind :80
  default_backend be_default
  use_backend be_pinned if { path_beg /p }
backend be_default
  server s1 127.0.0.1:1
backend be_pinned
  server s1 127.0.0.1:2
userlist admins
  user a insecure-password b
`;
const backend = (i: number, servers = 2, extra = ''): string =>
  `backend svc_${i}\n${extra}` +
  Array.from({ length: servers }, (_, s) => `  server srv${s + 1} 10.0.${i}.${s + 1}:80\n`).join(
    '',
  );
const config = (n: number, extra: (i: number) => string = () => ''): string =>
  head + Array.from({ length: n }, (_, i) => backend(i, 2, extra(i))).join('');

/** The backend headers of a part, in order. */
const backends = (p: CheckPart): string[] =>
  p.text
    .split('\n')
    .filter((l) => l.startsWith('backend '))
    .map((l) => l.slice(8));

describe('partitionConfig', () => {
  it('keeps a file that fits one run whole, and never splits with 0', () => {
    expect(partitionConfig(config(3), 100)).toBeUndefined();
    expect(partitionConfig(config(300), 0)).toBeUndefined();
  });

  it('checks frontends and the backends they name first, then batches with the shared sections', () => {
    const parts = partitionConfig(config(6), 4)!;
    expect(parts.map(backends)).toEqual([
      ['be_default', 'be_pinned'],
      ['svc_0', 'svc_1'],
      ['svc_2', 'svc_3'],
      ['svc_4', 'svc_5'],
    ]);
    expect(parts.map((p) => [p.listeners, p.movedBackends])).toEqual([
      [true, 0],
      [false, 2],
      [false, 2],
      [false, 2],
    ]);
    const batch = parts[1]!.text;
    // global, the named defaults and the userlist come along; the frontend does not.
    expect(batch).toContain('# generated\nglobal\n');
    expect(batch).toContain('defaults web\n  mode http');
    expect(batch).toContain('userlist admins');
    expect(batch).not.toContain('frontend http');
  });

  it('maps every line of a part to its line in the whole file', () => {
    const whole = config(6).split('\n');
    for (const part of partitionConfig(config(6), 4)!) {
      expect(part.text.endsWith('\n')).toBe(true); // every part keeps the final newline
      part.text
        .slice(0, -1)
        .split('\n')
        .forEach((line, i) => expect(whole[part.lines[i]! - 1]).toBe(line));
    }
  });

  it('keeps in part 1 every backend another section names, or that names another proxy', () => {
    const cfg =
      config(5, (i) =>
        i === 1
          ? '  server t 10.0.0.1:80 track svc_3/srv1\n'
          : i === 2
            ? '  acl x fe_conn(http) gt 1\n'
            : '',
      ) + 'frontend extra\n  bind :81\n  use_backend svc_0\n';
    const parts = partitionConfig(cfg, 2)!;
    // svc_0 is named by a frontend, svc_3 by svc_1's track; svc_1 names svc_3, svc_2 names http.
    expect(parts.map(backends)).toEqual([
      ['be_default', 'be_pinned', 'svc_0', 'svc_1', 'svc_2', 'svc_3'],
      ['svc_4'],
    ]);
  });

  it('counts server-template ranges and a backend without servers as one, never splitting a backend', () => {
    const cfg = `${head}backend bk_a\n  server-template s 1-6 10.0.0.1:80\nbackend bk_b\nbackend bk_c\n  server-template s 3 10.0.0.2:80\n`;
    const parts = partitionConfig(cfg, 4)!;
    expect(parts.slice(1).map(backends)).toEqual([['bk_a'], ['bk_b', 'bk_c']]);
  });

  it('does not split files with conditional blocks or proxies sharing a name', () => {
    expect(partitionConfig(`.if defined(X)\n.endif\n${config(10)}`, 2)).toBeUndefined();
    const [first, ...rest] = partitionConfig(config(10) + backend(3), 2)!;
    expect(backends(first!).filter((b) => b === 'svc_3')).toHaveLength(2);
    expect(rest.flatMap(backends)).not.toContain('svc_3');
  });
});

describe('partPassed and toWholeLines', () => {
  const part: CheckPart = {
    text: 'a\nb\nc',
    lines: [1, 40, 41],
    listeners: false,
    movedBackends: 1,
  };
  const clean = 'Configuration file has no error but will not start (no listener) => exit(2).\n';

  it('passes exit 0, and exit 2 with no alert only for a part without listeners', () => {
    expect(partPassed(part, 0, '')).toBe(true);
    expect(partPassed(part, 2, clean)).toBe(true);
    expect(partPassed({ ...part, listeners: true }, 2, clean)).toBe(false);
    expect(partPassed(part, 2, `[ALERT] (1) : config : something\n${clean}`)).toBe(false);
    expect(partPassed(part, 1, 'Fatal errors found in configuration.')).toBe(false);
    expect(partPassed(part, null, '')).toBe(false);
  });

  it('rewrites part lines in checker output to the whole file', () => {
    const out =
      '[ALERT] : config : parsing [/t/haproxy.part-2.cfg:2] : bad; see /t/haproxy.part-2.cfg:3';
    expect(toWholeLines(out, part, '/t/haproxy.part-2.cfg', '/t/haproxy.cfg')).toBe(
      '[ALERT] : config : parsing [/t/haproxy.cfg:40] : bad; see /t/haproxy.cfg:41',
    );
  });
});
