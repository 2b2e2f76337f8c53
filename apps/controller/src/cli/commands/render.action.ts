// The implementation of `haptic render`, loaded only when the command runs.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isHapticError } from '#core';
import type { ContextProvider } from '#render';
import {
  HaproxyChecker,
  assignToWatched,
  formatProblem,
  formatRenderFailure,
  listOutputs,
  loadManifests,
  specValidateOptions,
  validateOutputs,
  type RenderedOutputs,
} from '#validation';
import { ExitCode } from '../cli-io.js';
import type { CliContext } from '../command.js';
import { haproxyBinary, loadConfigForOffline, withModules } from '../load-config.js';

export interface RenderFlags {
  readonly file: string;
  readonly resources: string[];
  readonly output?: string;
  readonly validate?: boolean;
  readonly haproxyBin?: string;
  readonly module?: string[];
}

/** Where each output goes under `-o DIR`, mirroring the HAProxy side. */
// crt-lists are stored with the general files (as the dataplane lib deploys them).
const FOLDER: Record<string, string> = {
  map: 'maps',
  file: 'files',
  cert: 'ssl',
  'crt-list': 'files',
};

async function writeTree(dir: string, outputs: RenderedOutputs): Promise<string[]> {
  const written: string[] = [];
  for (const [target, text] of listOutputs(outputs)) {
    const colon = target.indexOf(':');
    const rel =
      colon < 0 ? target : join(FOLDER[target.slice(0, colon)] ?? 'other', target.slice(colon + 1));
    const path = join(dir, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text, { mode: target.startsWith('cert:') ? 0o600 : 0o644 });
    written.push(rel);
  }
  return written;
}

/** Runs the command; resolves to its exit code. */
export async function renderOffline(flags: RenderFlags, ctx: CliContext): Promise<number> {
  return withModules(flags.module, ctx.io, 'render', (providers) =>
    renderWith(flags, ctx, providers),
  );
}

async function renderWith(
  flags: RenderFlags,
  ctx: CliContext,
  providers: readonly ContextProvider[],
): Promise<number> {
  const { io } = ctx;
  const loaded = await loadConfigForOffline(flags.file, io, 'render', providers);
  if (!loaded) return ExitCode.invalidInput;
  const { spec } = loaded.config;
  let objects: unknown[];
  try {
    objects = await loadManifests(flags.resources);
  } catch (e) {
    io.err(`haptic render: ${isHapticError(e) ? e.message : String(e)}`);
    return ExitCode.invalidInput;
  }
  const { fixtures, unmatched } = assignToWatched(objects, spec);
  const counts = Object.entries(fixtures).map(([n, l]) => `${n}=${l.length}`);
  io.err(
    `haptic render: ${objects.length} objects (${counts.join(', ')}; ${unmatched.length} not watched)`,
  );
  const outcome = await loaded.renderer.render({
    fixtures,
    extraContext: spec.templatingSettings.extraContext,
  });
  if (!outcome.ok) {
    io.err(`haptic render: render failed: ${formatRenderFailure(outcome.error)}`);
    return ExitCode.failure;
  }
  if (flags.output === undefined) {
    for (const [target, text] of listOutputs(outcome.outputs))
      io.out(`# ==> ${target} <==\n${text}`);
  } else {
    const written = await writeTree(flags.output, outcome.outputs);
    io.err(
      `haptic render: wrote ${written.length} files to ${flags.output}: ${written.join(', ')}`,
    );
  }
  if (!flags.validate) return ExitCode.ok;
  const binary = haproxyBinary(flags.haproxyBin, io, 'render');
  if (!binary) return ExitCode.failure;
  const result = await validateOutputs(outcome.outputs, {
    ...specValidateOptions(spec),
    checker: new HaproxyChecker({ binary, timeoutMs: 30_000 }, 1),
  });
  for (const p of result.problems) io.err(`invalid: ${formatProblem(p)}`);
  if (result.valid)
    io.err(`haptic render: valid (haproxy -c ${Math.round(result.haproxy.durationMs ?? 0)} ms)`);
  return result.valid ? ExitCode.ok : ExitCode.failure;
}
