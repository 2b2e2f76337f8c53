import type { Command } from 'commander';
import type { CliIo } from './cli-io.js';

/**
 * One `haptic` subcommand. `register` adds it to the program; its action resolves to an exit code
 * through `setExit`, so long-running commands (servers) can keep the process alive instead.
 */
export interface CliCommand {
  readonly name: string;
  register(program: Command, ctx: CliContext): void;
}

export interface CliContext {
  readonly io: CliIo;
  /** Record the exit code the process should end with. */
  setExit(code: number): void;
}
