import {
  availableMajors,
  haproxyDialect,
  haproxyVersion,
  HaproxyBinaryNotFoundError,
  resolveHaproxyBinaryDetailed,
} from '#haproxy-bin';
import { isHapticError } from '#core';
import { ExitCode } from '../cli-io.js';
import type { CliCommand } from '../command.js';

interface HaproxyOpts {
  readonly haproxyBin?: string;
  readonly output: string;
}

/** The HAProxy binary haptic would run, why, its version and dialect, and the majors present. */
function describeHaproxy(opts: HaproxyOpts): Record<string, unknown> {
  const chosen = resolveHaproxyBinaryDetailed(opts.haproxyBin);
  const version = haproxyVersion(chosen.path);
  return {
    bin: chosen.path,
    source: chosen.source,
    version: version.text,
    dialect: haproxyDialect(version),
    available: availableMajors().map((i) => ({
      major: i.branch,
      bin: i.bin,
      version: i.version.text,
    })),
  };
}

export const haproxyCommand: CliCommand = {
  name: 'haproxy',
  register(program, ctx) {
    const { io } = ctx;
    program
      .command('haproxy')
      .description(
        'show which HAProxy binary haptic runs (--haproxy-bin, HAPTIC_HAPROXY_BIN, .tools 3.0, PATH)',
      )
      .option(
        '--haproxy-bin <path>',
        'HAProxy binary to use (default: HAPTIC_HAPROXY_BIN, then 3.0, then PATH)',
      )
      .option('-o, --output <format>', 'text or json', 'text')
      .action((opts: HaproxyOpts) => {
        try {
          const info = describeHaproxy(opts);
          if (opts.output === 'json') return io.out(JSON.stringify(info));
          const available = (info['available'] as { major: string; bin: string }[])
            .map((a) => `  ${a.major}  ${a.bin}`)
            .join('\n');
          io.out(
            `${String(info['bin'])} (${String(info['source'])}): HAProxy ${String(info['version'])}`,
          );
          io.out(`majors present:\n${available}`);
        } catch (e) {
          if (!isHapticError(e)) throw e;
          io.err(`haptic haproxy: ${e.message}`);
          const explicit =
            e instanceof HaproxyBinaryNotFoundError && e.details['source'] !== undefined;
          ctx.setExit(explicit ? ExitCode.invalidInput : ExitCode.failure);
        }
      });
  },
};
