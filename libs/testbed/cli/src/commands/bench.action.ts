import { writeFile } from 'node:fs/promises';
import {
  formatBench,
  roundedResult,
  runBench,
  SCENARIOS,
  SIZES,
  TerminalProgress,
  type ScenarioName,
  type SizeName,
} from '#testbed/bench';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { repoRoot } from '#testbed/stack';
import { ExitCode } from '../product-cli.js';
import type { CliContext } from '../product-cli.js';

export interface BenchFlags {
  scenario: string[];
  size: string;
  output: string;
  reps: string;
  out: string;
  ingresses?: string;
  haproxyBin?: string;
}

/** Checks the flags; a string is what is wrong with them. */
function parse(
  f: BenchFlags,
): { scenarios: ScenarioName[]; size: SizeName; reps: number; ingresses?: number } | string {
  const unknown = f.scenario.filter((s) => !(SCENARIOS as readonly string[]).includes(s));
  if (unknown.length > 0)
    return `--scenario: unknown ${unknown.join(', ')} (one of ${SCENARIOS.join(', ')})`;
  if (!(SIZES as readonly string[]).includes(f.size))
    return `--size must be one of ${SIZES.join(', ')}, got "${f.size}"`;
  if (f.output !== 'table' && f.output !== 'json')
    return `-o must be table or json, got "${f.output}"`;
  const reps = Number(f.reps);
  if (!Number.isInteger(reps) || reps < 1)
    return `--reps must be a whole number ≥ 1, got "${f.reps}"`;
  const ingresses = f.ingresses === undefined ? undefined : Number(f.ingresses);
  if (ingresses !== undefined && !(Number.isInteger(ingresses) && ingresses >= 1))
    return `--ingresses must be a whole number ≥ 1, got "${f.ingresses}"`;
  const scenarios = (f.scenario.length > 0 ? f.scenario : [...SCENARIOS]) as ScenarioName[];
  return { scenarios, size: f.size as SizeName, reps, ...(ingresses ? { ingresses } : {}) };
}

/** `haptic bench`: runs the scenarios, prints the table (or JSON) and writes the JSON file. */
export async function benchAction(f: BenchFlags, ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse(f);
  if (typeof p === 'string') {
    io.err(`haptic bench: ${p}`);
    return ExitCode.invalidInput;
  }
  let haproxyBin: string;
  try {
    haproxyBin = resolveHaproxyBinary(f.haproxyBin);
  } catch (e) {
    io.err(`haptic bench: ${e instanceof Error ? e.message : String(e)}`);
    return ExitCode.invalidInput;
  }
  const progress = new TerminalProgress(process.stderr);
  const result = await runBench({
    root: repoRoot(),
    scenarios: p.scenarios,
    size: p.size,
    reps: p.reps,
    ...(p.ingresses ? { ingresses: p.ingresses } : {}),
    haproxyBin,
    progress,
    onScenario: (name, index, total) => progress.begin(name, index, total),
    onScenarioEnd: (r) =>
      progress.end(
        r.error
          ? `failed after ${r.seconds.toFixed(0)} s: ${r.error}`
          : `${r.figures.length} figures in ${r.seconds.toFixed(0)} s`,
      ),
  });
  await writeFile(f.out, `${JSON.stringify(result, null, 2)}\n`);
  io.out(
    f.output === 'json' ? JSON.stringify(roundedResult(result), null, 2) : formatBench(result),
  );
  io.err(`haptic bench: results written to ${f.out}`);
  const failed = result.scenarios.filter((s) => s.error);
  for (const s of failed) io.err(`haptic bench: ${s.name} failed: ${s.error}`);
  return failed.length > 0 ? ExitCode.failure : ExitCode.ok;
}
