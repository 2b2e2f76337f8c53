import { writeCheckTree } from './check-tree.js';
import type { CheckTree } from './check-tree.js';
import type { HaproxyChecker, HaproxyCheckRun } from './haproxy-check.js';
import { traceOrigins, type TemplateTexts } from './origin.js';
import { partPassed, partitionConfig, toWholeLines } from './partition.js';
import { outputContent, type RenderedOutputs, type SourceMaps } from './outputs.js';
import type { StorageDirs } from './paths.js';
import type { ValidationProblem } from './problems.js';
import { reduceCheckerOutput } from './reduce.js';
import { checkStructure } from './structure.js';

/** What validation needs besides the outputs. */
export interface ValidateOptions {
  readonly dirs: StorageDirs;
  /** Refusal ids the operator permits (spec.validation.allowedDirectives). */
  readonly allowedDirectives?: readonly string[];
  /** Runs `haproxy -c`; without one only the structural checks run (and the result says so). */
  readonly checker?: HaproxyChecker;
  readonly sourceMaps?: SourceMaps;
  /** Template and snippet texts by name, to infer origins when a source map has a gap. */
  readonly templates?: TemplateTexts;
  /** Parent folder of the throw-away check trees (default: the OS temp dir). */
  readonly tmpBase?: string;
  /**
   * Server lines of backends checked apart per `haproxy -c` run (spec.validation.maxServersPerCheck;
   * see partition.ts); 0 or absent: the whole file in one run.
   */
  readonly maxServersPerCheck?: number;
}

/** How the `haproxy -c` step went. */
export interface HaproxyStep {
  readonly ran: boolean;
  readonly binary?: string;
  readonly durationMs?: number;
  readonly timedOut?: boolean;
  /** `haproxy -c` runs the file was checked in (1 unless it was split, see partition.ts). */
  readonly runs?: number;
  /** Why it did not run (structural problems, no checker). */
  readonly skipped?: string;
}

/** The verdict on one render. */
export interface ValidationResult {
  readonly valid: boolean;
  readonly problems: readonly ValidationProblem[];
  readonly haproxy: HaproxyStep;
}

/**
 * Validates a render: structural checks and the directive policy first (nothing runs if they
 * fail), then `haproxy -c` in a sandbox on a throw-away tree; problems carry template origins.
 */
export async function validateOutputs(
  outputs: RenderedOutputs,
  opts: ValidateOptions,
): Promise<ValidationResult> {
  const trace = (ps: readonly ValidationProblem[]): ValidationProblem[] =>
    traceOrigins(ps, (t) => outputContent(outputs, t), opts.sourceMaps, opts.templates);
  const structural = checkStructure(outputs, opts);
  if (structural.length > 0) {
    return {
      valid: false,
      problems: trace(structural),
      haproxy: { ran: false, skipped: 'structural checks failed' },
    };
  }
  if (!opts.checker) {
    return {
      valid: true,
      problems: [],
      haproxy: { ran: false, skipped: 'no HAProxy binary configured' },
    };
  }
  const tree = await writeCheckTree(outputs, opts.dirs, opts.tmpBase);
  try {
    const run = await checkInParts(outputs.haproxyConfig, tree, opts.checker, opts);
    const step: HaproxyStep = {
      ran: true,
      binary: opts.checker.options.binary,
      durationMs: run.durationMs,
      timedOut: run.timedOut,
      runs: run.runs,
    };
    if (run.valid) return { valid: true, problems: [], haproxy: step };
    const reduced = run.timedOut
      ? [
          {
            stage: 'haproxy' as const,
            output: 'haproxy.cfg',
            reason: `haproxy -c did not finish within ${opts.checker.options.timeoutMs} ms`,
          },
        ]
      : reduceCheckerOutput(run.output, tree);
    const problems =
      reduced.length > 0
        ? reduced
        : [
            {
              stage: 'haproxy' as const,
              output: 'haproxy.cfg',
              reason: `haproxy -c failed (exit code ${String(run.exitCode)})`,
            },
          ];
    return { valid: false, problems: trace(problems), haproxy: step };
  } finally {
    await tree.cleanup();
  }
}

/**
 * `haproxy -c` on the whole file, or on its parts one after another when it is large (the
 * first failing part ends the check; its output speaks of the whole file's lines).
 */
async function checkInParts(
  config: string,
  tree: CheckTree,
  checker: HaproxyChecker,
  opts: ValidateOptions,
): Promise<HaproxyCheckRun & { runs: number }> {
  const parts = partitionConfig(config, opts.maxServersPerCheck ?? 0);
  if (!parts) return { ...(await checker.check(tree, config)), runs: 1 };
  let durationMs = 0;
  let last: HaproxyCheckRun | undefined;
  for (const [i, part] of parts.entries()) {
    const path = await tree.writeConfig(`haproxy.part-${i + 1}.cfg`, part.text);
    const run = await checker.check(tree, config, path);
    durationMs += run.durationMs;
    const output = toWholeLines(run.output, part, path, tree.configPath);
    last = {
      ...run,
      output,
      durationMs,
      valid: !run.timedOut && partPassed(part, run.exitCode, output),
    };
    if (!last.valid) return { ...last, runs: i + 1 };
  }
  return { ...(last as HaproxyCheckRun), runs: parts.length };
}
