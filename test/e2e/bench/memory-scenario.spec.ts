import { describe, expect, it } from 'vitest';
import { memoryScenario } from '#testbed/bench';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { generateCertificate } from '#testbed/kube-sim';
import { heapLimitMiB } from '../../../apps/controller/src/cli/heap-limit.js';

// `npm run bench:memory` at a small size, so the scenario cannot rot: the real stack (kube-sim,
// one agent with real HAProxy, `haptic run` under the heap limit of a 512 Mi container) comes up,
// deploys the generated Ingresses and one change, and every figure is reported. The figures
// themselves are printed, never asserted against a threshold.
describe('the memory bench scenario', () => {
  it('reports the controller and haproxy -c figures for a small cluster', async () => {
    const tls = await generateCertificate({ commonName: 'bench', dnsNames: ['*.example.com'] });
    const figures = await memoryScenario({
      ingresses: 20,
      secrets: 2,
      tls,
      haproxyBin: resolveHaproxyBinary(undefined),
      heapLimitMiB: heapLimitMiB(512 * 1024 * 1024),
      changes: 1,
      timeoutMs: 240_000,
    });
    console.log(figures.map((f) => `${f.name}=${f.value}${f.unit}`).join(' '));
    const byName = new Map(figures.map((f) => [f.name, f]));
    expect([...byName.keys()]).toEqual([
      'controller.rss.first-deployment',
      'controller.heap-used.first-deployment',
      'controller.rss.after-changes',
      'controller.heap-used.after-changes',
      'controller.vmhwm',
      'haproxy-check.vmhwm',
      'haproxy-check.runs',
      'controller-plus-check.vmhwm',
      'controller.heap-limit',
    ]);
    for (const f of figures) {
      expect(f.n).toBe(20);
      expect(f.value).toBeGreaterThan(0);
    }
    const v = (name: string): number => byName.get(name)!.value;
    // The first deployment and the change each needed a successful check.
    expect(v('haproxy-check.runs')).toBeGreaterThanOrEqual(2);
    expect(v('controller-plus-check.vmhwm')).toBe(v('controller.vmhwm') + v('haproxy-check.vmhwm'));
    expect(v('controller.vmhwm')).toBeGreaterThanOrEqual(v('controller.rss.after-changes'));
    expect(v('controller.heap-used.after-changes')).toBeLessThan(v('controller.rss.after-changes'));
    expect(v('controller.heap-limit')).toBe(heapLimitMiB(512 * 1024 * 1024) * 1024 * 1024);
  }, 300_000);
});
