import type { CliCommand } from '../command.js';
import { agentCommand } from './agent.command.js';
import { configCommand } from './config.command.js';
import { echoCommand } from './echo.command.js';
import { kubeSimCommand } from './kube-sim.command.js';
import { nodeSimCommand } from './node-sim.command.js';
import { versionCommand } from './version.command.js';

/** Every `haptic` subcommand, one line each (each issue adds its own). */
export const commands: readonly CliCommand[] = [
  versionCommand,
  configCommand,
  kubeSimCommand,
  agentCommand,
  echoCommand,
  nodeSimCommand,
];
