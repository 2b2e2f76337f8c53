import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deployedBackendToken, deployedServers, previousContext } from './previous.js';

describe('deployedServers', () => {
  it('reads server lines per backend and listen section, nothing else', () => {
    const cfg = [
      'global',
      '  master-worker',
      'frontend http',
      '  server not-a-backend 1.1.1.1:80',
      'backend be_a',
      '  balance roundrobin',
      '  server s1 10.0.0.1:80 check',
      '  server s2 10.0.0.2:80',
      'listen stats',
      '  server x 127.0.0.1:8404',
      'backend be_empty',
    ].join('\n');
    expect(deployedServers(cfg)).toEqual({
      be_a: [
        { name: 's1', address: '10.0.0.1:80' },
        { name: 's2', address: '10.0.0.2:80' },
      ],
      stats: [{ name: 'x', address: '127.0.0.1:8404' }],
      be_empty: [],
    });
  });

  it('gives empty values when nothing was deployed yet', () => {
    const empty = previousContext(undefined);
    expect(empty['haproxy_config']).toBe('');
    expect(empty['maps']).toEqual({});
    expect({ ...(empty['backends'] as object) }).toEqual({});
  });
});

const config = (servers: Record<string, string[]>): string =>
  Object.entries(servers)
    .map(([be, lines]) =>
      [`backend ${be}`, '  balance roundrobin', ...lines.map((l) => `  server ${l}`)].join('\n'),
    )
    .join('\n');

describe('previousContext', () => {
  it('reads previous.backends as the deployed servers per backend, a plain object to read', () => {
    const cfg = config({ be_a: ['s1 10.0.0.1:80 check', 's2 10.0.0.2:80'], be_b: [] });
    const backends = previousContext({ haproxyConfig: cfg })['backends'] as Record<string, unknown>;
    expect(Object.keys(backends)).toEqual(['be_a', 'be_b']);
    expect(backends['be_a']).toEqual({
      servers: [
        { name: 's1', address: '10.0.0.1:80' },
        { name: 's2', address: '10.0.0.2:80' },
      ],
    });
    expect(backends['be_b']).toEqual({ servers: [] });
    expect(backends['missing']).toBeUndefined();
    expect(Object.hasOwn(backends, 'be_a')).toBe(true);
    expect(Object.hasOwn(backends, 'missing')).toBe(false);
    expect('be_b' in backends).toBe(true);
    expect(JSON.parse(JSON.stringify(backends))).toEqual(
      Object.fromEntries(Object.entries(deployedServers(cfg)).map(([k, v]) => [k, { servers: v }])),
    );
  });

  it('signs a backend by its server lines: the same token across configs while they are the same', () => {
    const token = (cfg: string, be: string): number | undefined =>
      deployedBackendToken(previousContext({ haproxyConfig: cfg })['backends'], be);
    const one = config({ be_a: ['s1 10.0.0.1:80'], be_b: ['s1 10.0.1.1:80'] });
    const two = config({ be_a: ['s1 10.0.0.1:80 weight 2'], be_b: ['s1 10.0.1.9:80'] });
    const a1 = token(one, 'be_a');
    const b1 = token(one, 'be_b');
    expect(a1).toBeGreaterThan(0);
    expect(a1).not.toBe(b1);
    // other keywords of the line are not part of the servers templates read
    expect(token(two, 'be_a')).toBe(a1);
    expect(token(two, 'be_b')).not.toBe(b1);
    expect(token(two, 'missing')).toBe(0);
    expect(deployedBackendToken({ be_a: { servers: [] } }, 'be_a')).toBeUndefined();
  });
});

describe('deployedServers: how the text is written', () => {
  /** The line-by-line reading the one-pass reader must equal. */
  const SECTION =
    /^(global|defaults|frontend|backend|listen|peers|resolvers|userlist|program|cache|http-errors|ring|mailers)\b\s*(\S*)/;
  const SERVER = /^server\s+(\S+)\s+(\S+)/;
  const byLines = (config: string) => {
    const out: Record<string, { name: string; address: string }[]> = {};
    let current: string | undefined;
    for (const raw of config.split('\n')) {
      const section = SECTION.exec(raw);
      if (section) {
        const named = (section[1] === 'backend' || section[1] === 'listen') && section[2];
        current = named ? section[2] : undefined;
        if (current !== undefined) out[current] ??= [];
        continue;
      }
      const server = current === undefined ? null : SERVER.exec(raw.trim());
      if (current !== undefined && server)
        out[current]!.push({ name: server[1] ?? '', address: server[2] ?? '' });
    }
    return out;
  };
  const line = fc.oneof(
    fc.constantFrom(
      'backend be_a',
      'backend\tbe_b  # note',
      'backend',
      'backend\r',
      'backends x',
      'listen li',
      'frontend fe',
      'defaults',
      '  server s1 10.0.0.1:80 weight 1',
      '\tserver\ts2\t10.0.0.2:80\r',
      'server s3 10.0.0.3:80',
      '  server lonely',
      '  server-template t 3 10.0.0.9:80',
      '  servers x y',
      '  balance roundrobin',
      '# backend commented',
      ' \r',
      '',
    ),
    fc.stringMatching(/^[ a-z0-9.:\t\r#-]{0,20}$/),
  );

  it('reads what a line-by-line reading reads, whatever the blanks, comments and line ends', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), (lines, trailing) => {
        const text = lines.join('\n') + (trailing ? '\n' : '');
        expect(deployedServers(text)).toEqual(byLines(text));
      }),
      { numRuns: 2000 },
    );
  });
});
