import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Resident memory of a process from /proc/<pid>/status, in bytes. */
export interface ProcessMemory {
  /** VmRSS: resident now. */
  readonly rss: number;
  /** VmHWM: the peak resident size since the process started. */
  readonly hwm: number;
}

function kib(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!m) throw new Error(`/proc status has no ${field}`);
  return Number(m[1]) * 1024;
}

/** VmRSS and VmHWM of a live process (Linux). */
export async function processMemory(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch((e: unknown) => {
    throw new Error(
      `process ${pid} is gone (restarted, e.g. out of memory under its heap limit? see its log): ${String(e)}`,
    );
  });
  return { rss: kib(status, 'VmRSS'), hwm: kib(status, 'VmHWM') };
}

/**
 * The GNU time binary the check wrapper measures `haproxy -c` with: the machine's, or the copy
 * `scripts/system-tools.sh` fetched into .tools/bin when the machine has none.
 */
export const GNU_TIME = ((): string => {
  const fetched = fileURLToPath(new URL('../../../../../.tools/bin/gnu-time', import.meta.url));
  const fetchedFromDist = fileURLToPath(
    new URL('../../../../../../.tools/bin/gnu-time', import.meta.url),
  );
  if (process.env['HAPTIC_IGNORE_SYSTEM_TOOLS'] !== '1' && existsSync('/usr/bin/time'))
    return '/usr/bin/time';
  return [fetched, fetchedFromDist].find((p) => existsSync(p)) ?? '/usr/bin/time';
})();

/**
 * Writes an executable wrapper around HAProxy that runs every `haproxy -c` under GNU time, which
 * appends the check's peak resident size (ru_maxrss, KiB: its VmHWM) to `log`; other invocations
 * run HAProxy as is. Absolute paths only: the validation sandbox gives the checker no PATH.
 */
export async function writeCheckWrapper(
  dir: string,
  haproxyBin: string,
  timeBin = GNU_TIME,
): Promise<{ wrapper: string; log: string }> {
  const wrapper = join(dir, 'haproxy-measured');
  const log = join(dir, 'haproxy-check-peaks.log');
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  await writeFile(
    wrapper,
    [
      '#!/bin/sh',
      'case " $* " in',
      `  *" -c "*) exec ${q(timeBin)} -a -o ${q(log)} -f 'maxrss_kib=%M' ${q(haproxyBin)} "$@" ;;`,
      `  *) exec ${q(haproxyBin)} "$@" ;;`,
      'esac',
      '',
    ].join('\n'),
  );
  await chmod(wrapper, 0o755);
  await writeFile(log, '');
  return { wrapper, log };
}

/** Peak resident sizes (bytes) of every `haproxy -c` the wrapper ran, in order. */
export async function checkPeaks(log: string): Promise<number[]> {
  const text = await readFile(log, 'utf8');
  return [...text.matchAll(/^maxrss_kib=(\d+)$/gm)].map((m) => Number(m[1]) * 1024);
}

/** A sample from a Prometheus exposition (first series of the family, or undefined). */
export function metricValue(exposition: string, name: string): number | undefined {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(exposition);
  return m ? Number(m[1]) : undefined;
}
