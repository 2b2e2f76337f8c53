import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineRenderScenario } from '#testbed/bench';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { generateCertificate } from '#testbed/kube-sim';
import { root } from '../controller/support.js';

// `npm run bench:offline-render` at a small size, so the scenario cannot rot: the built
// `haptic render` reads one generated multi-document YAML dump, writes its output, and
// `--validate` has HAProxy check it. The figures are printed, never asserted against a threshold.
const keep = mkdtempSync(join(tmpdir(), 'haptic-offline-render-e2e-'));
afterAll(() => rmSync(keep, { recursive: true, force: true }));

describe('the offline render bench scenario', () => {
  it('renders a generated dump with haptic render and reports its figures against haproxy -c', async () => {
    const tls = await generateCertificate({ commonName: 'bench', dnsNames: ['*.example.com'] });
    const figures = await offlineRenderScenario({
      root,
      sizes: [20],
      repetitions: 1,
      haproxyBin: resolveHaproxyBinary(undefined),
      tls,
      keepDir: keep,
    });
    console.log(figures.map((f) => `${f.name}=${f.value}${f.unit}`).join(' '));
    // GNU time gives CPU and peak RSS; the wall time and the check are always there
    const timed = existsSync('/usr/bin/time');
    expect(figures.map((f) => f.name)).toEqual([
      'offline-render.dump',
      'offline-render.wall',
      ...(timed ? ['offline-render.cpu', 'offline-render.max-rss'] : []),
      'offline-render.haproxy-check',
      'offline-render.wall/check',
    ]);
    for (const f of figures) {
      expect(f.n).toBe(20);
      expect(Number.isFinite(f.value)).toBe(true);
    }
    // every generated Ingress reached the output: the last one's host and its TLS Secret
    const out = join(keep, 'out-20');
    const maps = ['exact', 'prefix'].map((m) =>
      readFileSync(join(out, 'maps', `${m}.map`), 'utf8'),
    );
    expect(maps.join('\n')).toContain('app-19.example.com');
    expect(existsSync(join(out, 'ssl', 'ns-0_app-0-tls.pem'))).toBe(true);
  }, 300_000);
});
