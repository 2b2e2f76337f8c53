import { Command, CommanderError } from 'commander';
import { ExitCode, processIo, type CliIo } from './cli-io.js';
import type { CliCommand } from './command.js';
import { commands } from './commands/index.js';
import { VERSION } from './version.js';

/** Builds the `haptic` program with every registered subcommand. */
export function buildProgram(
  io: CliIo,
  setExit: (code: number) => void,
  list: readonly CliCommand[] = commands,
): Command {
  const program = new Command('haptic')
    .description('haptic: a template-driven HAProxy ingress controller for Kubernetes')
    .version(VERSION, '-V, --version', 'print the version and exit')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      '\nExtending haptic: `haptic run --module <path|package>` (repeatable) composes your own ' +
        'Nest module into the controller without editing haptic; see `haptic run --help`.',
    )
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();
  for (const command of list) command.register(program, { io, setExit });
  return program;
}

/** Runs the CLI and resolves to the process exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let code: number = ExitCode.ok;
  const program = buildProgram(io, (c) => (code = c));
  try {
    await program.parseAsync([...argv]);
  } catch (e) {
    if (e instanceof CommanderError) {
      // help and version are successes; everything else commander rejects is a usage error.
      const benign = ['commander.helpDisplayed', 'commander.version', 'commander.help'];
      return benign.includes(e.code) ? ExitCode.ok : ExitCode.invalidInput;
    }
    io.err(`haptic: ${e instanceof Error ? e.message : String(e)}`);
    return ExitCode.failure;
  }
  return code;
}
