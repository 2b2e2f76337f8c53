import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HaproxyBinaryNotFoundError } from './haproxy-bin.errors.js';
import { type HaproxyVersion, haproxyVersion } from './version.js';

/** The environment variable that selects the HAProxy binary everywhere in haptic. */
export const HAPROXY_BIN_ENV = 'HAPTIC_HAPROXY_BIN';
/** Overrides the folder `scripts/haproxy3.sh` fills (default `<project>/.tools/haproxy3`). */
export const HAPROXY3_DIR_ENV = 'HAPTIC_HAPROXY3_DIR';
/** Overrides the folder `scripts/system-tools.sh` fills with HAProxy 2.6 (default `<project>/.tools/haproxy26`). */
export const HAPROXY26_DIR_ENV = 'HAPTIC_HAPROXY26_DIR';
/**
 * `1`: act as if the machine had no HAProxy of its own (PATH and the sbin folders are not
 * searched), as on a fresh machine; the set-up scripts honour it too.
 */
export const IGNORE_SYSTEM_TOOLS_ENV = 'HAPTIC_IGNORE_SYSTEM_TOOLS';

/** Where a resolved binary came from, in order of precedence. */
export type HaproxyBinarySource = 'flag' | 'env' | 'project' | 'path' | 'project-2.6';

export interface ResolvedHaproxyBinary {
  readonly path: string;
  readonly source: HaproxyBinarySource;
}

export interface ResolveOptions {
  /** Environment to read (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The project folder holding `.tools/haproxy3` (default: found from this file). */
  readonly projectRoot?: string;
  /** Folders searched after PATH (default: Debian's sbin folders). */
  readonly fallbackDirs?: readonly string[];
}

// Debian puts haproxy in /usr/sbin, which is not on an unprivileged user's PATH.
const SBIN_DIRS = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Walks up from this module to the folder whose package.json is haptic's (source or dist). */
function findProjectRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'haptic') return dir;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function projectToolPath(
  dirEnv: string,
  folder: string,
  options: ResolveOptions,
): string | undefined {
  const env = options.env ?? process.env;
  const dir = env[dirEnv];
  if (dir) return join(resolve(dir), 'bin', 'haproxy');
  const root = options.projectRoot ?? findProjectRoot();
  return root === undefined ? undefined : join(root, '.tools', folder, 'bin', 'haproxy');
}

/** Path of the project's HAProxy 3.0 binary made by `scripts/haproxy3.sh` (present or not). */
export function projectHaproxy3Path(options: ResolveOptions = {}): string | undefined {
  return projectToolPath(HAPROXY3_DIR_ENV, 'haproxy3', options);
}

/**
 * Path of the project's HAProxy 2.6 binary, which `scripts/system-tools.sh` makes only when the
 * machine has no 2.6 of its own (present or not).
 */
export function projectHaproxy26Path(options: ResolveOptions = {}): string | undefined {
  return projectToolPath(HAPROXY26_DIR_ENV, 'haproxy26', options);
}

/** `haproxy` as installed on the machine (PATH, then the sbin folders), unless told to ignore it. */
function systemHaproxy(options: ResolveOptions): string | undefined {
  const env = options.env ?? process.env;
  if (env[IGNORE_SYSTEM_TOOLS_ENV] === '1') return undefined;
  return findExecutable('haproxy', options);
}

/** Finds an executable by name on PATH (then Debian's sbin folders); a path is checked as is. */
export function findExecutable(name: string, options: ResolveOptions = {}): string | undefined {
  if (name.includes('/')) {
    const path = isAbsolute(name) ? name : resolve(name);
    return isExecutableFile(path) ? path : undefined;
  }
  const env = options.env ?? process.env;
  const path = (env['PATH'] ?? '').split(delimiter).filter(Boolean);
  const dirs = [...path, ...(options.fallbackDirs ?? SBIN_DIRS)];
  return dirs.map((d) => join(d, name)).find(isExecutableFile);
}

function explicit(
  value: string,
  source: 'flag' | 'env',
  options: ResolveOptions,
): ResolvedHaproxyBinary {
  const path = findExecutable(value, options);
  if (path === undefined) {
    const from = source === 'flag' ? '--haproxy-bin' : HAPROXY_BIN_ENV;
    throw new HaproxyBinaryNotFoundError(
      `${from} names '${value}', which is not an executable file`,
      {
        details: { value, source },
      },
    );
  }
  return { path, source };
}

/**
 * Resolves the HAProxy binary: the CLI flag, then HAPTIC_HAPROXY_BIN, then the project's 3.0
 * binary when present, then `haproxy` on PATH, then the project's 2.6 binary (made when the
 * machine has none); says where it came from.
 */
export function resolveHaproxyBinaryDetailed(
  flag?: string,
  options: ResolveOptions = {},
): ResolvedHaproxyBinary {
  const env = options.env ?? process.env;
  if (flag) return explicit(flag, 'flag', options);
  const fromEnv = env[HAPROXY_BIN_ENV];
  if (fromEnv) return explicit(fromEnv, 'env', options);
  const project = projectHaproxy3Path(options);
  if (project !== undefined && isExecutableFile(project))
    return { path: project, source: 'project' };
  const onPath = systemHaproxy(options);
  if (onPath !== undefined) return { path: onPath, source: 'path' };
  const project26 = projectHaproxy26Path(options);
  if (project26 !== undefined && isExecutableFile(project26))
    return { path: project26, source: 'project-2.6' };
  throw new HaproxyBinaryNotFoundError(
    'no HAProxy binary found: pass --haproxy-bin, set HAPTIC_HAPROXY_BIN, run `bash scripts/setup.sh` ' +
      '(HAProxy 3.0, and 2.6 when the machine has none), or install haproxy',
  );
}

/** The HAProxy binary to use (see resolveHaproxyBinaryDetailed for the order). */
export function resolveHaproxyBinary(flag?: string, options: ResolveOptions = {}): string {
  return resolveHaproxyBinaryDetailed(flag, options).path;
}

/** One installed HAProxy branch usable by a test matrix. */
export interface HaproxyInstall {
  /** `major.minor`, e.g. `2.6`. */
  readonly branch: string;
  readonly bin: string;
  readonly version: HaproxyVersion;
}

/**
 * The HAProxy branches present on this machine, one binary each, oldest first. For each branch
 * the first of: HAPTIC_HAPROXY_BIN, the project's 3.0 binary, `haproxy` on PATH, the project's
 * 2.6 binary (so the machine's own 2.6 is used when it has one).
 */
export function availableMajors(options: ResolveOptions = {}): HaproxyInstall[] {
  const env = options.env ?? process.env;
  const explicitBin = env[HAPROXY_BIN_ENV];
  const candidates = [
    explicitBin === undefined ? undefined : findExecutable(explicitBin, options),
    projectHaproxy3Path(options),
    systemHaproxy(options),
    projectHaproxy26Path(options),
  ]
    .filter((c): c is string => Boolean(c))
    .map((c) => findExecutable(c, options))
    .filter((c): c is string => c !== undefined);
  const byBranch = new Map<string, HaproxyInstall>();
  for (const bin of new Set(candidates)) {
    let version: HaproxyVersion;
    try {
      version = haproxyVersion(bin);
    } catch {
      continue; // a broken candidate is simply not available; resolve* reports explicit ones
    }
    if (!byBranch.has(version.branch))
      byBranch.set(version.branch, { branch: version.branch, bin, version });
  }
  return [...byBranch.values()].sort(
    (a, b) => a.version.major - b.version.major || a.version.minor - b.version.minor,
  );
}
