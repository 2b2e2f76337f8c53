import { benchCommand } from './commands/bench.command.js';
import { echoCommand } from './commands/echo.command.js';
import { kubeSimCommand } from './commands/kube-sim.command.js';
import { nodeSimCommand } from './commands/node-sim.command.js';
import {
  processIo,
  productCommands,
  runProductCli,
  type CliCommand,
  type CliIo,
} from './product-cli.js';

/** The test-bed's `haptic` subcommands: they run from a checkout, never from the image. */
export const testBedCommands: readonly CliCommand[] = [
  echoCommand,
  kubeSimCommand,
  nodeSimCommand,
  benchCommand,
];

/** `haptic` from a checkout: the product's commands and the test-bed's. */
export function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  return runProductCli(argv, io, [...productCommands, ...testBedCommands]);
}
