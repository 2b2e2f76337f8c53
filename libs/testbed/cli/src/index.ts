export { runCli, testBedCommands } from './cli.js';
