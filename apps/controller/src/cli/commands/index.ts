import type { CliCommand } from '../command.js';
import { agentCommand } from './agent.command.js';
import { benchCommand } from './bench.command.js';
import { configCommand } from './config.command.js';
import { echoCommand } from './echo.command.js';
import { haproxyCommand } from './haproxy.command.js';
import { kubeSimCommand } from './kube-sim.command.js';
import { migrateCommand } from './migrate.command.js';
import { nodeSimCommand } from './node-sim.command.js';
import { renderCommand } from './render.command.js';
import { runCommand } from './run.command.js';
import { syncCommand } from './sync.command.js';
import { validateCommand } from './validate.command.js';
import { versionCommand } from './version.command.js';

/** Every `haptic` subcommand, one line each (each issue adds its own). */
export const commands: readonly CliCommand[] = [
  versionCommand,
  configCommand,
  agentCommand,
  echoCommand,
  kubeSimCommand,
  nodeSimCommand,
  renderCommand,
  runCommand,
  syncCommand,
  validateCommand,
  migrateCommand,
  haproxyCommand,
  benchCommand,
];
