import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { loadConfiguration, runCucumber } from '@cucumber/cucumber/api';
import { repoRoot } from '#testbed/stack';
import { ReportBuilder, type CaseReport, type SuiteReport } from './report.js';
import { runGatewaySuite } from './gateway/runner.js';
import { runNginxSuite } from './nginx/runner.js';

/** The suites this runner knows: their feature folder and step definitions (compiled). */
const SUITES: Record<string, { features: string; steps: string }> = {
  ingress: { features: 'test/conformance/ingress', steps: './ingress-steps.js' },
};

export const SUITE_NAMES = [...Object.keys(SUITES), 'gateway-api', 'ingress-nginx'];

/**
 * Runs one suite's features (or `featureFiles`) with cucumber and returns the report; the
 * gateway-api and ingress-nginx suites run their cases (or those named in `featureFiles`) with
 * their own runners (ingress-nginx: `haproxyMajors`, the first for every case, the others for the
 * core routing cases; default 3.0 and 2.6).
 */
export async function runSuite(
  suite: string,
  featureFiles?: readonly string[],
  progress: (c: CaseReport) => void = () => undefined,
  options: { haproxyMajors?: readonly string[] } = {},
): Promise<SuiteReport> {
  if (suite === 'gateway-api') return runGatewaySuite(featureFiles, progress);
  if (suite === 'ingress-nginx')
    return runNginxSuite(featureFiles, progress, {
      ...(options.haproxyMajors?.length ? { majors: options.haproxyMajors } : {}),
    });
  const s = SUITES[suite];
  if (!s) throw new RangeError(`unknown suite "${suite}" (known: ${SUITE_NAMES.join(', ')})`);
  const root = repoRoot();
  const dir = join(root, s.features);
  const paths =
    featureFiles ??
    readdirSync(dir)
      .filter((f) => f.endsWith('.feature'))
      .sort()
      .map((f) => join(dir, f));
  const sink = new PassThrough();
  sink.resume();
  const environment = { cwd: root, stdout: sink, stderr: sink };
  const { runConfiguration } = await loadConfiguration(
    {
      file: false,
      provided: {
        paths: [...paths],
        import: [fileURLToPath(new URL(s.steps, import.meta.url))],
        format: [],
        strict: true,
      },
    },
    environment,
  );
  const builder = new ReportBuilder(suite, progress);
  await runCucumber(runConfiguration, environment, (e) => builder.add(e));
  return builder.build();
}
