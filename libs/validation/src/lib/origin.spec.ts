import { describe, expect, it } from 'vitest';
import type { CheckTree } from './check-tree.js';
import { inferOrigin, traceOrigins } from './origin.js';
import { formatProblem } from './problems.js';
import { reduceCheckerOutput } from './reduce.js';

const tree: CheckTree = {
  root: '/tmp/haptic-check-x',
  configPath: '/tmp/haptic-check-x/haproxy.cfg',
  toLogical: (t) => t.split('/tmp/haptic-check-x/s0').join('/etc/haproxy/maps'),
  outputOf: (p) => (p === '/tmp/haptic-check-x/haproxy.cfg' ? 'haproxy.cfg' : undefined),
  writeConfig: () => Promise.reject(new Error('not used')),
  cleanup: () => Promise.resolve(),
};

const raw = `[NOTICE]   (15169) : haproxy version is 2.6.12-1+deb12u4
[NOTICE]   (15169) : path to executable is /usr/sbin/haproxy
[ALERT]    (15169) : config : parsing [/tmp/haptic-check-x/haproxy.cfg:12] : unknown keyword 'balanse' in 'backend' section; did you mean 'balance' maybe ?
[ALERT]    (15287) : config : Parsing [/tmp/haptic-check-x/haproxy.cfg:10]: failed to open pattern file </tmp/haptic-check-x/s0/nope.map>.
[WARNING]  (15169) : config : something harmless
[ALERT]    (15169) : config : Error(s) found in configuration file : /tmp/haptic-check-x/haproxy.cfg
[ALERT]    (15169) : config : Fatal errors found in configuration.`;

describe('reduceCheckerOutput', () => {
  it('keeps alerts only, without PIDs, temp paths or summaries', () => {
    expect(reduceCheckerOutput(raw, tree).map(formatProblem)).toEqual([
      "haproxy.cfg:12: unknown keyword 'balanse' in 'backend' section; did you mean 'balance' maybe ?",
      'haproxy.cfg:10: failed to open pattern file </etc/haproxy/maps/nope.map>.',
    ]);
  });
});

describe('origins', () => {
  const templates = {
    'haproxy.cfg': 'global\n  daemon\n{% render_glob "backends-" %}',
    'backends-web': 'backend {{ name }}\n  balanse roundrobin\n  server s1 {{ addr }}',
  };

  it('infers the snippet line from literal text', () => {
    expect(inferOrigin('  balanse roundrobin', templates)).toEqual({
      template: 'backends-web',
      line: 2,
    });
    expect(inferOrigin('backend be_web', templates)).toEqual({ template: 'backends-web', line: 1 });
    expect(inferOrigin('nothing alike', templates)).toBeUndefined();
  });

  it('prefers the renderer source map and marks inferred origins as probable', () => {
    const p = [{ stage: 'haproxy' as const, output: 'haproxy.cfg', line: 2, reason: 'bad' }];
    const text = () => 'backend be\n  balanse roundrobin\n';
    const mapped = traceOrigins(p, text, {
      'haproxy.cfg': {
        lines: [undefined, { template: 'backends-web', line: 2, object: 'ingresses/default/web' }],
      },
    });
    expect(mapped.map(formatProblem)).toEqual([
      'haproxy.cfg:2 (from template "backends-web" line 2, object ingresses/default/web): bad',
    ]);
    expect(traceOrigins(p, text, {}, templates).map(formatProblem)).toEqual([
      'haproxy.cfg:2 (probably from template "backends-web" line 2): bad',
    ]);
  });
});
