import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// E2e suites start `bin/haptic.js` and the agent from dist/, so they must run the code as it is,
// however they are started (`npm test`, `npm run test:matrix`, `npx vitest --project e2e`): when
// any compiled source is newer than its output in dist/, this builds first, and refuses the run
// with the compiler's message when the build fails. A fresh dist/ costs one walk over the sources.
const root = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE_DIRS = ['apps', 'libs'];

/** Sources `tsconfig.build.json` compiles: apps and libs, no specs, no libs/testing. */
function* buildSources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && path !== join(root, 'libs', 'testing'))
        yield* buildSources(path);
    } else if (
      entry.name.endsWith('.ts') &&
      !entry.name.endsWith('.d.ts') &&
      !entry.name.endsWith('.spec.ts') &&
      !entry.name.endsWith('.test.ts')
    )
      yield path;
  }
}

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The first source whose compiled output in dist/ is missing or older, if any. */
export function staleSource(): string | undefined {
  for (const dir of SOURCE_DIRS) {
    for (const source of buildSources(join(root, dir))) {
      const out = join(root, 'dist', relative(root, source)).replace(/\.ts$/, '.js');
      const built = mtime(out);
      if (built === undefined || built < (mtime(source) ?? 0)) return relative(root, source);
    }
  }
  // the npm workspaces under examples/ build into their own dist/ (src/x.ts → dist/x.js)
  for (const example of readdirSync(join(root, 'examples'), { withFileTypes: true })) {
    if (!example.isDirectory()) continue;
    const dir = join(root, 'examples', example.name);
    for (const source of buildSources(join(dir, 'src'))) {
      const out = join(dir, 'dist', relative(join(dir, 'src'), source)).replace(/\.ts$/, '.js');
      const built = mtime(out);
      if (built === undefined || built < (mtime(source) ?? 0)) return relative(root, source);
    }
  }
  return undefined;
}

export default function setup(): void {
  const stale = staleSource();
  if (stale === undefined) return;
  process.stdout.write(`e2e: dist/ is older than ${stale}: building (npm run build) first\n`);
  const built = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (built.status !== 0)
    throw new Error(
      `e2e refused: dist/ is stale (${stale} changed) and \`npm run build\` failed, so the suites ` +
        `would run old code:\n${built.stdout}${built.stderr}`,
    );
  const still = staleSource();
  if (still !== undefined)
    throw new Error(`e2e refused: dist/ is still older than ${still} after \`npm run build\``);
}
