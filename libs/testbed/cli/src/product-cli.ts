// The product CLI's contract, as the test-bed commands use it (the test-bed may import the
// product; the product never imports the test-bed).
export { buildProgram, runCli as runProductCli } from '../../../../apps/controller/src/cli/cli.js';
export { ExitCode, processIo, type CliIo } from '../../../../apps/controller/src/cli/cli-io.js';
export type { CliCommand, CliContext } from '../../../../apps/controller/src/cli/command.js';
export { commands as productCommands } from '../../../../apps/controller/src/cli/commands/index.js';
