import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { HaproxyProcessError } from '../agent.errors.js';

const run = promisify(execFile);

/** The HAProxy binary's version, from `haproxy -v`. */
export interface HaproxyVersion {
  readonly full: string;
  readonly major: number;
  readonly minor: number;
}

/** Parses the first line of `haproxy -v` ("HAProxy version 2.6.12-1+deb12u4 2026/10/17 - ..."). */
export function parseHaproxyVersion(text: string): HaproxyVersion {
  const m = /HA-?Proxy version (\d+)\.(\d+)(\S*)/.exec(text);
  if (!m)
    throw new HaproxyProcessError(`cannot read the HAProxy version from: ${text.slice(0, 120)}`);
  return { full: `${m[1]}.${m[2]}${m[3] ?? ''}`, major: Number(m[1]), minor: Number(m[2]) };
}

/** Runs `<bin> -v` and parses it. */
export async function detectHaproxyVersion(bin: string): Promise<HaproxyVersion> {
  try {
    const { stdout } = await run(bin, ['-v'], { timeout: 10_000 });
    return parseHaproxyVersion(stdout);
  } catch (e) {
    if (e instanceof HaproxyProcessError) throw e;
    throw new HaproxyProcessError(`cannot run "${bin} -v"`, { cause: e });
  }
}

/**
 * True when the master CLI's `reload` answers synchronously (`Success=1|0` then the start-up
 * log): HAProxy 2.7 and later. 2.6 answers nothing and the outcome must be read from `show proc`.
 */
export function hasSyncReload(v: HaproxyVersion): boolean {
  return v.major > 2 || (v.major === 2 && v.minor >= 7);
}
