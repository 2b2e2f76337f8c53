#!/usr/bin/env node
// `npm run test:image` (as root, with buildah, podman, runc and mmdebstrap): `npm run image`, then
// the container test (Vitest project `image`) on what it built, then the unit tests on the Node
// version the image ships (Node's linux binary from .tools/, as the image has it). Each part
// counts: the image build and the shipped-Node unit run as one test each, the container test by its
// tests. Writes the totals to .cache/test/image-summary.json (.ci/run adds them to its last line)
// and ends with `N passed, N failed, N skipped`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dockerfileArg, nodeDist } from './image.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const cache = join(root, '.cache', 'test');
mkdirSync(cache, { recursive: true });
const totals = { passed: 0, failed: 0, skipped: 0 };
const count = (ok) => (ok ? totals.passed++ : totals.failed++);

function finish() {
  writeFileSync(join(cache, 'image-summary.json'), `${JSON.stringify(totals)}\n`);
  console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(totals.failed === 0 ? 0 : 1);
}

/** Vitest with a JSON report; adds its counts (a failure outside any test counts as one). */
function vitest(name, node, args, env = {}) {
  const report = join(cache, `${name}.json`);
  rmSync(report, { force: true });
  const r = spawnSync(
    node,
    [
      join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      ...args,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } },
  );
  if (!existsSync(report)) return count(false);
  const j = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += j.numPassedTests;
  totals.skipped += j.numPendingTests + j.numTodoTests;
  const failed = j.numFailedTests + (j.numFailedTestSuites > 0 && j.numFailedTests === 0 ? 1 : 0);
  totals.failed += failed === 0 && r.status !== 0 ? 1 : failed;
}

console.log('\n── image: npm run image ──');
const built = spawnSync(process.execPath, [join(root, 'scripts/image.mjs')], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
});
process.stdout.write(built.stdout ?? '');
const images = Object.fromEntries(
  (built.stdout ?? '')
    .split('\n')
    .map((l) => /^image (\S+) (\S+)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => [m[1], m[2]]),
);
count(built.status === 0 && images.controller !== undefined && images.haproxy !== undefined);
if (totals.failed > 0) finish();

console.log('\n── tests: image (podman) ──');
vitest('image', process.execPath, ['--project', 'image'], {
  HAPTIC_IMAGE_CONTROLLER: images.controller,
  HAPTIC_IMAGE_HAPROXY: images.haproxy,
});

const version = dockerfileArg(readFileSync(join(root, 'Dockerfile'), 'utf8'), 'NODE_VERSION');
const node = join(nodeDist(version, process.arch === 'arm64' ? 'arm64' : 'x64'), 'bin', 'node');
console.log(`\n── tests: unit on the shipped Node (v${version}) ──`);
vitest('unit-shipped-node', node, ['--project', 'unit']);
finish();
