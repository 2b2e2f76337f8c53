import { readFile } from 'node:fs/promises';
import { parseTemplateConfigText, type TemplateConfig } from '#core';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { formatProblem as formatRenderProblem } from '#render';
import type { CliIo } from './cli-io.js';
import { OfflineRenderer } from './offline-renderer.js';

/** A config read from disk with its renderer, or undefined after the problems were printed. */
export async function loadConfigForOffline(
  file: string,
  io: CliIo,
  command: string,
): Promise<{ config: TemplateConfig; renderer: OfflineRenderer } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(e);
    io.err(`haptic ${command}: ${file}: ${reason}`);
    return undefined;
  }
  const parsed = parseTemplateConfigText(text);
  if (!parsed.ok) {
    io.err(`haptic ${command}: ${file}: ${parsed.problems.length} problem(s)`);
    for (const p of parsed.problems) io.err(`  ${p.path}: ${p.reason}`);
    return undefined;
  }
  const renderer = new OfflineRenderer(parsed.config);
  const problems = renderer.compileProblems();
  if (problems.length > 0) {
    io.err(`haptic ${command}: ${file}: templates do not compile`);
    for (const p of problems) io.err(`  ${formatRenderProblem(p)}`);
    return undefined;
  }
  return { config: parsed.config, renderer };
}

/** The HAProxy binary for `haproxy -c`, or undefined after the reason was printed. */
export function haproxyBinary(
  flag: string | undefined,
  io: CliIo,
  command: string,
): string | undefined {
  try {
    return resolveHaproxyBinary(flag);
  } catch (e) {
    io.err(`haptic ${command}: ${(e as Error).message}`);
    return undefined;
  }
}

/** Parses a positive integer flag. */
export function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  return n;
}
