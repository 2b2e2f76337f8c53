// The implementation of `haptic validate`, loaded only when the command runs.
import type { ContextProvider } from '#render';
import {
  HaproxyChecker,
  formatTestReport,
  runValidationTests,
  selectTests,
  specValidateOptions,
  validateOutputs,
  type TestReport,
} from '#validation';
import { ExitCode } from '../cli-io.js';
import type { CliContext } from '../command.js';
import { haproxyBinary, loadConfigForOffline, positiveInt, withModules } from '../load-config.js';

export interface ValidateFlags {
  readonly file: string;
  readonly test?: string;
  readonly output: string;
  readonly workers: string;
  readonly haproxyBin?: string;
  readonly timeout: string;
  readonly env: string[];
  readonly module?: string[];
}

/** `NAME=VALUE` pairs for `${NAME}` references (nothing else reaches haproxy -c). */
function envValues(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const p of pairs) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(p);
    if (!m?.[1]) throw new RangeError(`--env takes NAME=VALUE, not ${p}`);
    env[m[1]] = m[2] ?? '';
  }
  return env;
}

/** Runs the command; resolves to its exit code. */
export async function validate(flags: ValidateFlags, ctx: CliContext): Promise<number> {
  const { io } = ctx;
  if (flags.output !== 'text' && flags.output !== 'json') {
    io.err(`haptic validate: --output must be text or json, not ${flags.output}`);
    return ExitCode.invalidInput;
  }
  let workers: number;
  let timeoutMs: number;
  let env: Record<string, string>;
  try {
    workers = positiveInt(flags.workers, '--workers');
    timeoutMs = positiveInt(flags.timeout, '--timeout');
    env = envValues(flags.env);
  } catch (e) {
    io.err(`haptic validate: ${(e as Error).message}`);
    return ExitCode.invalidInput;
  }
  return withModules(flags.module, io, 'validate', (providers) =>
    validateWith(flags, ctx, { workers, timeoutMs, env }, providers),
  );
}

async function validateWith(
  flags: ValidateFlags,
  ctx: CliContext,
  { workers, timeoutMs, env }: { workers: number; timeoutMs: number; env: Record<string, string> },
  providers: readonly ContextProvider[],
): Promise<number> {
  const { io } = ctx;
  const loaded = await loadConfigForOffline(flags.file, io, 'validate', providers);
  if (!loaded) return ExitCode.invalidInput;
  const { spec } = loaded.config;
  if (flags.test !== undefined && selectTests(spec, flags.test).length === 0) {
    io.err(
      `haptic validate: no validation test named ${flags.test} (have: ${Object.keys(spec.validationTests).sort().join(', ') || 'none'})`,
    );
    return ExitCode.invalidInput;
  }
  const binary = haproxyBinary(flags.haproxyBin, io, 'validate');
  if (!binary) return ExitCode.failure;
  const checker = new HaproxyChecker({ binary, timeoutMs, env }, workers);
  const specOptions = specValidateOptions(spec);
  const report = await runValidationTests(spec, loaded.renderer, {
    workers,
    ...(flags.test === undefined ? {} : { only: flags.test }),
    validate: (outputs, sourceMaps) =>
      validateOutputs(outputs, {
        ...specOptions,
        checker,
        ...(sourceMaps ? { sourceMaps } : {}),
      }),
  });
  print(report, flags, ctx);
  return report.passed ? ExitCode.ok : ExitCode.failure;
}

function print(report: TestReport, flags: ValidateFlags, { io }: CliContext): void {
  if (flags.output === 'json') {
    io.out(JSON.stringify({ file: flags.file, ...report }));
    return;
  }
  if (report.tests.length === 0) {
    io.out(`${flags.file}: no validation tests (spec.validationTests is empty)`);
    return;
  }
  io.out(formatTestReport(report));
}
