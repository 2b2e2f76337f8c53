import type { CliCommand } from '../command.js';
import { agentCommand } from './agent.command.js';
import { configCommand } from './config.command.js';
import { haproxyCommand } from './haproxy.command.js';
import { migrateCommand } from './migrate.command.js';
import { renderCommand } from './render.command.js';
import { runCommand } from './run.command.js';
import { syncCommand } from './sync.command.js';
import { validateCommand } from './validate.command.js';
import { versionCommand } from './version.command.js';

/**
 * The product's `haptic` subcommands, one line each: what the image carries. The test-bed's
 * (echo, kube-sim, node-sim, bench) are added by libs/testbed/cli when run from a checkout.
 */
export const commands: readonly CliCommand[] = [
  versionCommand,
  configCommand,
  agentCommand,
  renderCommand,
  runCommand,
  syncCommand,
  validateCommand,
  migrateCommand,
  haproxyCommand,
];

/** The test-bed's subcommands: the image answers them with where they run instead. */
export const TEST_BED_COMMANDS = ['echo', 'kube-sim', 'node-sim', 'bench'] as const;
