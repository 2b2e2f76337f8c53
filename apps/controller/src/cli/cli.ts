import { Command, CommanderError } from 'commander';
import { ExitCode, processIo, type CliIo } from './cli-io.js';
import type { CliCommand } from './command.js';
import { commands, TEST_BED_COMMANDS } from './commands/index.js';
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

/**
 * Hidden commands naming where a test-bed command runs, for each one `program` lacks (the image
 * carries the product only): `haptic kube-sim` there fails with a clear message, not "unknown".
 */
function addTestBedPointers(program: Command, io: CliIo, setExit: (code: number) => void): void {
  const present = new Set(program.commands.map((c) => c.name()));
  for (const name of TEST_BED_COMMANDS.filter((n) => !present.has(n)))
    program
      .command(name, { hidden: true })
      .allowUnknownOption()
      .allowExcessArguments()
      .helpOption(false)
      .action(() => {
        io.err(
          `haptic ${name}: part of the test bed, not of this installation (the image carries the ` +
            'controller and the agent); run it from a haptic checkout: npx haptic ' +
            `${name} --help`,
        );
        setExit(ExitCode.failure);
      });
}

/**
 * Runs the CLI and resolves to the process exit code; `list` is the product's commands unless a
 * caller (the test-bed's CLI) adds its own.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = processIo,
  list: readonly CliCommand[] = commands,
): Promise<number> {
  let code: number = ExitCode.ok;
  const setExit = (c: number) => (code = c);
  const program = buildProgram(io, setExit, list);
  addTestBedPointers(program, io, setExit);
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
