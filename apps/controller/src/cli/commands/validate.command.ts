import {
  HaproxyChecker,
  formatTestReport,
  runValidationTests,
  selectTests,
  templateTexts,
  validateOutputs,
  type TestReport,
} from '#validation';
import { ExitCode } from '../cli-io.js';
import type { CliCommand, CliContext } from '../command.js';
import { haproxyBinary, loadConfigForOffline, positiveInt } from '../load-config.js';

interface ValidateFlags {
  readonly file: string;
  readonly test?: string;
  readonly output: string;
  readonly workers: string;
  readonly haproxyBin?: string;
  readonly timeout: string;
  readonly env: string[];
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

async function validate(flags: ValidateFlags, ctx: CliContext): Promise<number> {
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
  const loaded = await loadConfigForOffline(flags.file, io, 'validate');
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
  const templates = templateTexts(spec);
  const report = await runValidationTests(spec, loaded.renderer, {
    workers,
    ...(flags.test === undefined ? {} : { only: flags.test }),
    validate: (outputs, sourceMaps) =>
      validateOutputs(outputs, {
        dirs: spec.dataplane,
        allowedDirectives: spec.validation.allowedDirectives,
        checker,
        templates,
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

export const validateCommand: CliCommand = {
  name: 'validate',
  register(program, ctx) {
    program
      .command('validate')
      .description(
        'run the embedded validation tests of a HAProxyTemplateConfig offline (exit 1 when any fails)',
      )
      .requiredOption('-f, --file <path>', 'the config file (resource or bare spec, YAML or JSON)')
      .option('--test <name>', 'run only this test')
      .option('-o, --output <format>', 'text or json', 'text')
      .option('--workers <n>', 'tests (and haproxy -c checks) run at once', '2')
      .option(
        '--haproxy-bin <path>',
        'HAProxy binary for haproxy -c (default: $HAPTIC_HAPROXY_BIN, then the project 3.0, then PATH)',
      )
      .option('--timeout <ms>', 'time limit of one haproxy -c', '30000')
      .option(
        '--env <NAME=VALUE>',
        'value for a ${NAME} the config references, e.g. POD_IP=127.0.0.1 (repeatable)',
        (v: string, acc: string[]) => [...acc, v],
        [] as string[],
      )
      .action(async (flags: ValidateFlags) => ctx.setExit(await validate(flags, ctx)));
  },
};
