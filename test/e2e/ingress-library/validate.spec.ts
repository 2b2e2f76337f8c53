import { rm } from 'node:fs/promises';
import { describeForMajors } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assembleLibrary, haptic, tempBase } from './library.js';

interface Report {
  readonly passed: boolean;
  readonly tests: readonly { name: string; passed: boolean }[];
  readonly totals: {
    tests: number;
    failedTests: number;
    assertions: number;
    failedAssertions: number;
  };
}

// `haptic validate` on the assembled library, with each HAProxy major checking the renders.
describeForMajors(
  ['2.6', '3.0'],
  'the Ingress library passes its embedded validation tests',
  (haproxy) => {
    let base: string;
    let config: string;

    beforeAll(async () => {
      base = await tempBase();
      config = await assembleLibrary(base);
    });
    afterAll(async () => rm(base, { recursive: true, force: true }));

    it('haptic validate passes every embedded test, at least 40', () =>
      expectAllPass(config, haproxy.bin, 40));

    it('haptic validate fails (exit 1) when a library test is broken', async () => {
      const broken = await assembleLibrary(base, (r) => {
        const tests = r.spec['validationTests'] as Record<
          string,
          { assertions: { expected?: unknown }[] }
        >;
        const test = tests['paths-order-independent-of-input'];
        if (!test?.assertions[0]) throw new Error('the library lost its paths-order test');
        test.assertions[0].expected = 'a.example.com/ svc_apps_echo_8080\n';
      });
      const run = await haptic(
        ['validate', '-f', broken, '-o', 'json', '--haproxy-bin', haproxy.bin],
        300_000,
      );
      const report = JSON.parse(run.stdout) as Report;
      expect(report.tests.filter((t) => !t.passed).map((t) => t.name)).toEqual([
        'paths-order-independent-of-input',
      ]);
      expect(run.code).toBe(1);
    });
  },
);

// The ingress-nginx library's embedded tests (its annotations' lines, refusals and escaping) on
// each major: what `haproxy -c` of both accepts is part of what the library promises.
describeForMajors(
  ['2.6', '3.0'],
  'the ingress-nginx library passes its embedded validation tests',
  (haproxy) => {
    let base: string;
    let config: string;

    beforeAll(async () => {
      base = await tempBase();
      config = await assembleLibrary(base, () => undefined, 'ingress-nginx');
    });
    afterAll(async () => rm(base, { recursive: true, force: true }));

    it('haptic validate passes every embedded test, at least 60', () =>
      expectAllPass(config, haproxy.bin, 60));
  },
);

/** `haptic validate` of an assembled library: every test passes, and there are at least `atLeast`. */
async function expectAllPass(config: string, bin: string, atLeast: number): Promise<void> {
  const run = await haptic(['validate', '-f', config, '-o', 'json', '--haproxy-bin', bin], 300_000);
  const report = JSON.parse(run.stdout) as Report;
  expect(report.tests.filter((t) => !t.passed).map((t) => t.name)).toEqual([]);
  expect(report.totals.failedAssertions).toBe(0);
  expect(report.totals.tests).toBeGreaterThanOrEqual(atLeast);
  expect(run.code).toBe(0);
}
