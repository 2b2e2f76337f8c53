import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { isFiniteMeasure, LATENCY_STAGES, SCENARIOS, type BenchResult } from '#testbed/bench';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { root } from '../controller/support.js';

// `haptic bench --size tiny`: every scenario at a size of seconds, so the bench cannot rot. The
// real command runs (its own kube-sim, agent with real HAProxy, echoes and `haptic run`); every
// figure must be present and finite, distributions with their percentiles. Speed is never asserted.

const EXPECTED: Record<(typeof SCENARIOS)[number], readonly string[]> = {
  latency: ['new-host', 'endpoint-change', 'certificate-rotation', 'structural'].flatMap((k) => [
    `latency.${k}`,
    `latency.${k}.reloads`,
    // the median per stage of the changes the controller's /debug/changes reported applied
    ...LATENCY_STAGES.map((s) => `latency.${k}.stage.${s}`),
  ]),
  floor: [
    'floor.haproxy-check',
    'floor.reload',
    'floor.check-plus-reload',
    'floor.reload-delay',
    'ratio.structural-p99-to-floor',
    'ratio.structural-median-to-floor',
    'ratio.structural-p99-to-floor-plus-delay',
  ],
  churn: [
    'churn.changes',
    'churn.write-duration',
    'churn.converged-after-last-write',
    'churn.converged-after-first-write',
    'churn.reloads',
    'churn.runtime-operations',
    'churn.deployments',
  ],
  hitless: [
    'hitless.structural-changes',
    'hitless.reloads',
    ...['keep-alive', 'new-connection', 'tls'].flatMap((k) => [
      `hitless.requests.${k}`,
      `hitless.failed.${k}`,
    ]),
    'hitless.failed',
  ],
  scale: [
    'scale.index-synced',
    'scale.first-deployment',
    'scale.render.mean',
    'scale.validation.mean',
    'scale.controller.rss',
    'scale.controller.vmhwm',
    'scale.controller.heap-used',
    'scale.controller.heap-limit',
    'scale.haproxy.rss.before-reload',
    'scale.haproxy.rss.peak-across-reload',
    'scale.haproxy.processes-at-peak',
  ],
  render: [
    'render.full',
    'render.full.cpu',
    'render.one-ingress-change',
    'render.one-ingress-change.cpu',
    'ratio.change-to-full',
    'output.haproxy-cfg',
    'haproxy.check',
    'ratio.full-to-check',
  ],
  webhook: ['webhook.runtime', 'webhook.structural', 'webhook.other-class', 'webhook.all'],
};

/** Figures that are distributions (several samples): they carry min/median/p95/p99. */
const DISTRIBUTIONS = /^(latency\.[a-z-]+|webhook\.[a-z-]+|floor\.(haproxy-check|reload))$/;

describe('haptic bench', () => {
  const dir = mkdtempSync(join(tmpdir(), 'haptic-bench-spec-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every scenario at the tiny size and reports every figure, finite', async () => {
    const out = join(dir, 'results.json');
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin/haptic.js'),
        'bench',
        '--size',
        'tiny',
        '--reps',
        '2',
        '-o',
        'json',
        '--out',
        out,
        '--haproxy-bin',
        resolveHaproxyBinary(undefined),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code, stderr.slice(-3000)).toBe(0);
    const printed = JSON.parse(stdout) as BenchResult;
    const written = JSON.parse(readFileSync(out, 'utf8')) as BenchResult;
    expect(printed.scenarios.map((s) => s.name)).toEqual([...SCENARIOS]);
    expect(written.machine.cores).toBeGreaterThan(0);
    expect(written.haproxy.version).toMatch(/^\d+\.\d+/);
    expect(written.chart.reloadDelayMs).toBeGreaterThanOrEqual(0);
    for (const s of written.scenarios) {
      expect(s.error, `${s.name}: ${s.error}`).toBeUndefined();
      // render and webhook wrap scenarios other work extends: their figures may grow
      const names = s.figures.map((f) => f.name);
      if (s.name === 'render' || s.name === 'webhook')
        expect(names).toEqual(expect.arrayContaining([...EXPECTED[s.name]]));
      else expect(names).toEqual(EXPECTED[s.name]);
      for (const f of s.figures) {
        expect(isFiniteMeasure(f), `${f.name}: ${JSON.stringify(f)}`).toBe(true);
        expect(f.n, f.name).toBeGreaterThan(0);
        if (DISTRIBUTIONS.test(f.name))
          for (const k of ['min', 'median', 'p95', 'p99'] as const)
            expect(typeof f[k], `${f.name}.${k}`).toBe('number');
      }
    }
    // The hitless scenario proves something only if HAProxy did reload under traffic: at least
    // one reload while requests ran on every kind of connection, and not one of them failed.
    const hitless = new Map(
      written.scenarios.find((s) => s.name === 'hitless')!.figures.map((f) => [f.name, f.value]),
    );
    expect(hitless.get('hitless.reloads')).toBeGreaterThanOrEqual(1);
    for (const kind of ['keep-alive', 'new-connection', 'tls'])
      expect(hitless.get(`hitless.requests.${kind}`), kind).toBeGreaterThan(0);
    expect(hitless.get('hitless.failed')).toBe(0);
    console.log(
      written.scenarios
        .flatMap((s) =>
          s.figures.map((f) => `${f.name}=${Math.round(f.value * 10) / 10}${f.unit}(n=${f.n})`),
        )
        .join(' '),
    );
  }, 600_000);
});
