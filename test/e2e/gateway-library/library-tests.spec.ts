import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haptic, runNode, tempBase } from '../ingress-library/library.js';

interface Report {
  readonly tests: readonly { name: string; passed: boolean }[];
  readonly totals: { failedAssertions: number };
}

// `haptic validate` on the assembled Gateway API library: its embedded tests render through the
// resolver (the `gateway` variable) and each render is checked by `haproxy -c`.
describe('the Gateway API library passes its embedded validation tests', () => {
  let base: string;
  let config: string;

  beforeAll(async () => {
    base = await tempBase();
    config = join(base, 'gateway-api-library.yaml');
    const library = 'helm/haptic/libraries/gateway-api';
    const run = await runNode([
      'scripts/assemble-library.mjs',
      '--library',
      library,
      '--out',
      config,
      '--check',
    ]);
    if (run.code !== 0) throw new Error(`assemble-library failed (${run.code}): ${run.stderr}`);
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  it('haptic validate passes every embedded test, the gRPC one included', async () => {
    const run = await haptic(['validate', '-f', config, '-o', 'json'], 300_000);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.tests.map((t) => t.name)).toContain('gateway-grpc-routing');
    expect(report.tests.filter((t) => !t.passed).map((t) => t.name)).toEqual([]);
    expect(report.totals.failedAssertions).toBe(0);
    expect(run.code).toBe(0);
  });
});
