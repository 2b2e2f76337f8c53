import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

// The tools scripts/setup.sh fetched when the machine lacks them (openssl, promtool, kubectl,
// helm, patchelf) come first for every test and the processes they start.
process.env['PATH'] = `${root}.tools/bin${delimiter}${process.env['PATH'] ?? ''}`;

/**
 * `#name` resolves to libs/name/src/index.ts in tests, `#testbed/name` to the test-bed's
 * libs/testbed/name/src/index.ts (package.json "imports" points at dist for runtime).
 */
const libAlias = {
  find: /^#((?:testbed\/)?[a-z][a-z0-9-]*)$/,
  replacement: `${root}libs/$1/src/index.ts`,
};

const shared = {
  resolve: { alias: [libAlias] },
  oxc: false as const,
  plugins: [swc.vite({ module: { type: 'es6' } })],
};

export default defineConfig({
  test: {
    // The second reporter prints per-HAProxy-major totals when matrix suites ran (else nothing).
    reporters: ['default', `${root}test/reporters/haproxy-majors.reporter.ts`],
    projects: [
      {
        ...shared,
        test: {
          name: 'unit',
          include: ['apps/**/*.spec.ts', 'libs/**/*.spec.ts', 'test/architecture/**/*.spec.ts'],
          environment: 'node',
          pool: 'forks',
          setupFiles: [`${root}test/setup.ts`],
        },
      },
      {
        ...shared,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.spec.ts'],
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 60_000,
          setupFiles: [`${root}test/setup.ts`],
        },
      },
      {
        ...shared,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.spec.ts'],
          globalSetup: [
            `${root}test/e2e/haproxy-setup.global.ts`,
            `${root}test/e2e/fresh-build.global.ts`,
          ],
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          setupFiles: [`${root}test/setup.ts`],
        },
      },
      {
        // The built images under podman (root only): run by `npm run test:image`, which builds them
        // first and names them in HAPTIC_IMAGE_CONTROLLER / HAPTIC_IMAGE_HAPROXY.
        ...shared,
        test: {
          name: 'image',
          include: ['test/image/**/*.spec.ts'],
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          setupFiles: [`${root}test/setup.ts`],
        },
      },
    ],
  },
});
