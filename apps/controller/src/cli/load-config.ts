import { readFile } from 'node:fs/promises';
import { parseTemplateConfigText, type TemplateConfig } from '#core';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { formatProblem as formatRenderProblem, type ContextProvider } from '#render';
import { ExitCode, type CliIo } from './cli-io.js';
import { OfflineRenderer } from './offline-renderer.js';

/**
 * A config read from disk with its renderer (the built-in template variables and `providers`),
 * or undefined after the problems were printed.
 */
export async function loadConfigForOffline(
  file: string,
  io: CliIo,
  command: string,
  providers: readonly ContextProvider[] = [],
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
  const renderer = new OfflineRenderer(parsed.config, providers);
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

/**
 * Runs `body` with the template variables of `--module`s (as `haptic run` loads them), and lets
 * the modules go afterwards; a module that cannot be loaded is printed and exits 2.
 */
export async function withModules(
  specs: readonly string[] | undefined,
  io: CliIo,
  command: string,
  body: (providers: readonly ContextProvider[]) => Promise<number>,
): Promise<number> {
  if (!specs?.length) return body([]);
  const { offlineExtensions } = await import('../run/offline-extensions.js');
  let loaded;
  try {
    loaded = await offlineExtensions(specs);
  } catch (e) {
    io.err(`haptic ${command}: ${(e as Error).message}`);
    return ExitCode.invalidInput;
  }
  try {
    return await body(loaded.providers);
  } finally {
    await loaded.close();
  }
}
