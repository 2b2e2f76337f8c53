#!/usr/bin/env node
// `npm run image`: builds the haptic image (role controller) from Dockerfile and the HAProxy pod
// image (role haproxy) from Dockerfile.haproxy with buildah, as root, needing no image registry:
//
// 1. The bases are assembled here and cached in .tools/image/, keyed by version and architecture:
//    a Debian trixie root file system with HAProxy, tini and CA certificates (mmdebstrap), and
//    Node's linux binary from the npm package node-linux-<arch> (`npm pack`), at the versions the
//    Dockerfile's ARGs name.
// 2. The app is compiled (`npm run build`) and staged: package.json, bin/, dist/ without the test
//    bed and source maps, production node_modules only.
// 3. `buildah build` of both Dockerfiles with build arguments naming the local bases.
//
// Ends with one line per image, `image <role> <name>`. Options: --arch amd64|arm64 (default: this
// machine's), --repository <prefix> (default localhost/haproxy-haptic), --tag <tag> (default: the
// package version), --no-build (use the dist/ already built).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { arch as hostArch } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = join(root, '.tools', 'image');
const stageDir = join(root, '.cache', 'image', 'context');

/** The test bed's dist/ folder, kept out of the runtime image (the product never imports it). */
export const testBedDist = join('dist', 'libs', 'testbed');

/** Debian packages of the base beyond the essential set. */
const basePackages = ['haproxy', 'tini', 'ca-certificates', 'libstdc++6', 'libatomic1'];
/** Names the cached root file system and base image after their content. */
const baseKey = createHash('sha256').update(basePackages.join(',')).digest('hex').slice(0, 8);

const { values: opts } = parseArgs({
  options: {
    arch: { type: 'string', default: hostArch() === 'arm64' ? 'arm64' : 'amd64' },
    repository: { type: 'string', default: 'localhost/haproxy-haptic' },
    tag: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
});
if (!['amd64', 'arm64'].includes(opts.arch))
  fail(`--arch must be amd64 or arm64, got ${opts.arch}`);
const nodeArch = opts.arch === 'amd64' ? 'x64' : 'arm64';

function fail(message) {
  process.stderr.write(`npm run image: ${message}\n`);
  process.exit(1);
}

function log(message) {
  process.stderr.write(`== ${message}\n`);
}

/** Runs a command with output on stderr (stdout stays for the `image` lines); throws on failure. */
function sh(cmd, args, { cwd = root, capture = false } = {}) {
  const r = spawnSync(cmd, args, {
    cwd,
    stdio: ['ignore', capture ? 'pipe' : process.stderr, 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) fail(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  return capture ? r.stdout.trim() : '';
}

/** The default of a global ARG of a Dockerfile (the versions live there, once). */
export function dockerfileArg(text, name) {
  const m = new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`Dockerfile: no ARG ${name}=<value>`);
  return m[1];
}

/** The Debian root file system with HAProxy, built once per HAProxy version and architecture. */
function baseRootfs(haproxyVersion) {
  const tar = join(cacheDir, `trixie-haproxy-${haproxyVersion}-${baseKey}-${opts.arch}.tar`);
  if (existsSync(tar)) return tar;
  log(`mmdebstrap: Debian trixie (${opts.arch}) with ${basePackages.join(', ')}`);
  mkdirSync(cacheDir, { recursive: true });
  const trim = ['man', 'doc', 'locale', 'info', 'lintian'].map(
    (d) => `--dpkgopt=path-exclude=/usr/share/${d}/*`,
  );
  sh('mmdebstrap', [
    '--variant=essential',
    `--architectures=${opts.arch}`,
    `--include=${basePackages.join(',')}`,
    ...trim,
    // the licences stay
    '--dpkgopt=path-include=/usr/share/doc/*/copyright',
    '--aptopt=Acquire::Retries "3"',
    'trixie',
    `${tar}.part`,
  ]);
  renameSync(`${tar}.part`, tar);
  return tar;
}

/** Node's linux binary from the npm package node-linux-<arch>, extracted into .tools/. */
export function nodeDist(version, arch = nodeArch) {
  const dir = join(root, '.tools', `node-${version}-linux-${arch}`);
  if (existsSync(join(dir, 'bin', 'node'))) return dir;
  log(`npm pack node-linux-${arch}@${version}`);
  mkdirSync(cacheDir, { recursive: true });
  const file = sh(
    'npm',
    ['pack', `node-linux-${arch}@${version}`, '--pack-destination', cacheDir, '--silent'],
    { capture: true },
  )
    .split('\n')
    .at(-1);
  const tmp = `${dir}.part`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  sh('tar', [
    '-xzf',
    join(cacheDir, file),
    '-C',
    tmp,
    '--strip-components=1',
    'package/bin/node',
    'package/LICENSE',
  ]);
  rmSync(join(cacheDir, file));
  renameSync(tmp, dir);
  return dir;
}

const imageExists = (name) =>
  spawnSync('buildah', ['inspect', '--type', 'image', name], { stdio: 'ignore' }).status === 0;

/** A local base image from a root file system tarball or from Node's binary, made once. */
function baseImages(haproxyVersion, nodeVersion) {
  const base = `localhost/haptic-base/trixie-haproxy:${haproxyVersion}-${baseKey}-${opts.arch}`;
  const node = `localhost/haptic-base/node:${nodeVersion}-${opts.arch}`;
  if (!imageExists(base)) {
    const tar = baseRootfs(haproxyVersion);
    log(`base image ${base}`);
    const c = sh('buildah', ['from', '--arch', opts.arch, 'scratch'], { capture: true });
    sh('buildah', ['add', c, tar, '/']);
    sh('buildah', [
      'config',
      '--arch',
      opts.arch,
      '--os',
      'linux',
      '--env',
      'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      c,
    ]);
    sh('buildah', ['commit', '--rm', '--quiet', c, base]);
  }
  if (!imageExists(node)) {
    const dir = nodeDist(nodeVersion);
    log(`base image ${node}`);
    const c = sh('buildah', ['from', '--arch', opts.arch, 'scratch'], { capture: true });
    sh('buildah', ['copy', '--chmod', '0755', c, join(dir, 'bin', 'node'), '/usr/local/bin/node']);
    sh('buildah', ['copy', c, join(dir, 'LICENSE'), '/usr/local/share/doc/node/LICENSE']);
    sh('buildah', ['config', '--arch', opts.arch, '--os', 'linux', c]);
    sh('buildah', ['commit', '--rm', '--quiet', c, node]);
  }
  return { base, node };
}

/**
 * Package folders (relative to the root) of the production dependency tree, read from the lockfile:
 * every installed package not marked dev (workspace links and absent optional ones left out).
 */
export function productionPackages(lock, installed = (p) => existsSync(join(root, p))) {
  return Object.entries(lock.packages)
    .filter(([path, meta]) => path.startsWith('node_modules/') && !meta.dev && !meta.devOptional)
    .filter(([path, meta]) => !meta.link && installed(path))
    .map(([path]) => path)
    .sort();
}

/** The build context: the compiled app with what `haptic run` and `haptic agent` need. */
function stageApp() {
  if (!opts['no-build']) {
    log('npm run build');
    sh('npm', ['run', '--silent', 'build']);
  }
  log('staging the app');
  rmSync(stageDir, { recursive: true, force: true });
  const app = join(stageDir, 'app');
  mkdirSync(app, { recursive: true });
  cpSync(join(root, 'package.json'), join(app, 'package.json'));
  cpSync(join(root, 'bin'), join(app, 'bin'), { recursive: true });
  const keep = (src) =>
    src !== join(root, testBedDist) &&
    !src.endsWith('.map') &&
    !src.endsWith('.d.ts') &&
    !src.endsWith('.tsbuildinfo');
  cpSync(join(root, 'dist'), join(app, 'dist'), { recursive: true, filter: keep });
  // Each package without the packages nested in it (those are copied on their own when they are
  // production ones), without executables' links and source maps.
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  for (const pkg of productionPackages(lock)) {
    const from = join(root, pkg);
    cpSync(from, join(app, pkg), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) =>
        src === from || (!src.startsWith(`${from}/node_modules`) && !src.endsWith('.map')),
    });
  }
}

function build(dockerfile, name, args) {
  log(`buildah build -f ${dockerfile} -t ${name}`);
  sh('buildah', [
    'build',
    '--quiet',
    '--layers',
    '--pull-never',
    '--arch',
    opts.arch,
    '-f',
    join(root, dockerfile),
    ...Object.entries(args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    '-t',
    name,
    stageDir,
  ]);
}

function main() {
  if (process.getuid?.() !== 0) fail('run as root (buildah and mmdebstrap need it)');
  for (const tool of ['buildah', 'mmdebstrap'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status !== 0)
      fail(`${tool} is not installed (Debian: apt-get install buildah podman runc mmdebstrap)`);
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const nodeVersion = dockerfileArg(text, 'NODE_VERSION');
  const haproxyVersion = dockerfileArg(text, 'HAPROXY_VERSION');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const tag = opts.tag ?? pkg.version;
  const started = Date.now();
  const bases = baseImages(haproxyVersion, nodeVersion);
  stageApp();
  const controller = `${opts.repository}/haptic:${tag}`;
  const haproxy = `${opts.repository}/haproxy:${haproxyVersion}`;
  build('Dockerfile', controller, { BASE_IMAGE: bases.base, NODE_IMAGE: bases.node });
  build('Dockerfile.haproxy', haproxy, { BASE_IMAGE: bases.base });
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  process.stdout.write(`image controller ${controller}\nimage haproxy ${haproxy}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
