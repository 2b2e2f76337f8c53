import { describe, expect, it } from 'vitest';
import { deployedServers, previousContext } from './previous.js';

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
    expect(previousContext(undefined)).toEqual({ haproxy_config: '', maps: {}, backends: {} });
  });
});
