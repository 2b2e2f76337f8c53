import { execFileSync } from 'node:child_process';
import { HaproxyVersionUnreadableError } from './haproxy-bin.errors.js';

/** A HAProxy release as printed by `haproxy -v`; `branch` is HAProxy's "major" (`2.6`, `3.0`). */
export interface HaproxyVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** `major.minor`, the release branch that decides the CLI dialect. */
  readonly branch: string;
  /** The full version token, e.g. `3.0.11-1+deb13u4`. */
  readonly text: string;
}

const VERSION_LINE = /^HA-?Proxy version (\d+)\.(\d+)(?:\.(\d+))?(\S*)/m;

/** Parses the output of `haproxy -v` (or `-vv`); undefined when it carries no version line. */
export function parseHaproxyVersion(output: string): HaproxyVersion | undefined {
  const m = VERSION_LINE.exec(output);
  if (!m) return undefined;
  const [, major, minor, patch, rest] = m;
  const text = `${major}.${minor}${patch === undefined ? '' : `.${patch}`}${rest ?? ''}`;
  return {
    major: Number(major),
    minor: Number(minor),
    patch: patch === undefined ? 0 : Number(patch),
    branch: `${major}.${minor}`,
    text,
  };
}

/** Runs `bin -v` and parses its version; throws HaproxyVersionUnreadableError when it cannot. */
export function haproxyVersion(bin: string): HaproxyVersion {
  let output: string;
  try {
    // Synchronous on purpose: a probe of a few milliseconds, run once at start-up or collection.
    output = execFileSync(bin, ['-v'], { encoding: 'utf8', timeout: 10_000, stdio: 'pipe' });
  } catch (cause) {
    throw new HaproxyVersionUnreadableError(`cannot run '${bin} -v'`, { cause, details: { bin } });
  }
  const version = parseHaproxyVersion(output);
  if (!version) {
    throw new HaproxyVersionUnreadableError(`'${bin} -v' printed no HAProxy version`, {
      details: { bin, output: output.slice(0, 200) },
    });
  }
  return version;
}

/** True when `v` is at least `major.minor` (e.g. the synchronous reload needs 2.7). */
export function isAtLeast(v: HaproxyVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}
