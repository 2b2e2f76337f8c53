import { isHapticError } from '#core';
import { ExitCode } from '../cli-io.js';
import type { CliCommand, CliContext } from '../command.js';
import { VERSION } from '../version.js';
import {
  prepareConfigDir,
  startAgent,
  type CredentialSource,
} from '../../../../agent/src/index.js';

interface AgentFlags {
  port: string;
  address: string;
  configDir: string;
  haproxyBin?: string;
  userlist?: string;
  username?: string;
  passwordFile?: string;
  reloadDelay: string;
  bootstrapConfig?: string;
  keepHaproxy?: boolean;
  tlsCertificate?: string;
  tlsKey?: string;
  masterSocket?: string;
  prepare?: boolean;
}

/** Reads the credential flags: exactly one of --userlist or --username + --password-file. */
export function credentialSource(f: AgentFlags): CredentialSource | string {
  if (f.userlist && (f.username || f.passwordFile))
    return 'use either --userlist or --username/--password-file';
  if (f.userlist) return { kind: 'userlist', file: f.userlist };
  if (f.username && f.passwordFile)
    return { kind: 'password-file', username: f.username, file: f.passwordFile };
  return 'credentials required: --userlist FILE or --username U --password-file F';
}

export const agentCommand: CliCommand = {
  name: 'agent',
  register(program, ctx) {
    const { io } = ctx;
    program
      .command('agent')
      .description('run the Dataplane-API-compatible agent that drives a local HAProxy')
      .option('--port <port>', 'API port (0 = any free port)', '5555')
      .option('--address <ip>', 'API address, also HAProxy POD_IP', '127.0.0.1')
      .requiredOption(
        '--config-dir <dir>',
        'HAProxy config dir (haproxy.cfg, maps/, ssl/, general/)',
      )
      .option(
        '--haproxy-bin <path>',
        'HAProxy binary (default: $HAPTIC_HAPROXY_BIN, then .tools HAProxy 3.0, then PATH)',
      )
      .option('--userlist <file>', 'userlist file (user NAME insecure-password PASS)')
      .option('--username <user>', 'API user name (with --password-file)')
      .option('--password-file <file>', 'file holding the password; re-read when it changes')
      .option(
        '--reload-delay <ms>',
        'coalesce reloads requested within this window (0: reload at once)',
        '0',
      )
      .option('--tls-certificate <file>', 'serve HTTPS with this certificate (PEM; with --tls-key)')
      .option('--tls-key <file>', 'private key for --tls-certificate (PEM)')
      .option('--keep-haproxy', 'leave HAProxy running on exit (a later agent adopts it)')
      .option(
        '--bootstrap-config <file>',
        'haproxy.cfg to start from when the config dir has none (default: a minimal one)',
      )
      .option(
        '--master-socket <path>',
        'attach to the HAProxy master CLI at this socket (HAProxy run by another container on the config dir) instead of starting HAProxy',
      )
      .option(
        '--prepare',
        'only lay out the config dir (bootstrap haproxy.cfg unless present, run/agent.cfg) and exit: the init step before an HAProxy the agent attaches to',
      )
      .action(async (f: AgentFlags) => {
        if (f.prepare === true) return prepare(f, ctx);
        const creds = credentialSource(f);
        const port = Number(f.port);
        if (!f.tlsCertificate !== !f.tlsKey) {
          io.err('haptic agent: --tls-certificate and --tls-key go together');
          return ctx.setExit(ExitCode.invalidInput);
        }
        if (typeof creds === 'string' || !Number.isInteger(port) || port < 0 || port > 65535) {
          io.err(`haptic agent: ${typeof creds === 'string' ? creds : `invalid --port ${f.port}`}`);
          return ctx.setExit(ExitCode.invalidInput);
        }
        try {
          const agent = await startAgent({
            configDir: f.configDir,
            port,
            address: f.address,
            credentials: creds,
            reloadDelayMs: Number(f.reloadDelay),
            agentVersion: VERSION,
            log: (line) => io.err(`haptic agent: ${line}`),
            ...(f.haproxyBin ? { haproxyBin: f.haproxyBin } : {}),
            ...(f.bootstrapConfig ? { bootstrapConfigFile: f.bootstrapConfig } : {}),
            ...(f.masterSocket ? { masterSocket: f.masterSocket } : {}),
            ...(f.tlsCertificate && f.tlsKey
              ? { tls: { certFile: f.tlsCertificate, keyFile: f.tlsKey } }
              : {}),
          });
          io.out(
            `haptic agent listening on ${agent.url} (HAProxy ${agent.haproxyVersion.full}, config dir ${agent.configDir})`,
          );
          await new Promise<void>((resolve) => {
            process.once('SIGTERM', resolve);
            process.once('SIGINT', resolve);
          });
          await agent.close({ keepHaproxy: f.keepHaproxy === true });
          ctx.setExit(ExitCode.ok);
        } catch (e) {
          io.err(`haptic agent: ${isHapticError(e) || e instanceof Error ? e.message : String(e)}`);
          ctx.setExit(ExitCode.failure);
        }
      });
  },
};

/** `haptic agent --prepare`: writes the config dir an attached HAProxy starts from, then exits. */
function prepare(f: AgentFlags, ctx: CliContext): void {
  try {
    const files = prepareConfigDir(f.configDir, {
      ...(f.masterSocket ? { masterSocket: f.masterSocket } : {}),
      ...(f.bootstrapConfig ? { bootstrapConfigFile: f.bootstrapConfig } : {}),
    });
    ctx.io.out(`haptic agent: prepared ${files.configFile} and ${files.fragmentFile}`);
    ctx.setExit(ExitCode.ok);
  } catch (e) {
    ctx.io.err(`haptic agent --prepare: ${e instanceof Error ? e.message : String(e)}`);
    ctx.setExit(ExitCode.failure);
  }
}
