import { ExitCode } from '../cli-io.js';
import type { CliCommand } from '../command.js';

interface RunFlags {
  kubeconfig?: string;
  namespace?: string;
  config?: string;
  address?: string;
  healthPort?: string;
  metricsPort?: string;
  logLevel?: string;
  identity?: string;
  haproxyBin?: string;
  module?: string[];
  webhookPort?: string;
  webhookCertDir?: string;
  selfSignedCertificate?: string;
  shutdownTimeout?: string;
}

/** Default of --shutdown-timeout (s): below the chart's terminationGracePeriodSeconds (30) less its drainSeconds (5). */
const SHUTDOWN_TIMEOUT_S = 20;

/** Resolves to 'late' after `seconds` (and never, once `cancel` ran). */
function deadline(seconds: number): { late: Promise<'late'>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), seconds * 1000);
  });
  return { late, cancel: () => clearTimeout(timer) };
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Errors of the operator's making (flags, kubeconfig, --module) exit 2; the rest exit 1. */
function exitCodeOf(e: unknown): number {
  return (e as { code?: unknown }).code === 'HAPTIC_STARTUP_CONFIG'
    ? ExitCode.invalidInput
    : ExitCode.failure;
}

/** Resolves on the first SIGTERM or SIGINT. */
function signalled(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (s: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(s);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

export const runCommand: CliCommand = {
  name: 'run',
  register(program, ctx) {
    const { io } = ctx;
    const setExit = (code: number) => ctx.setExit(code);
    program
      .command('run')
      .description('run the controller: watch, render, validate and deploy to every HAProxy pod')
      .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then in-cluster)')
      .option(
        '-n, --namespace <ns>',
        'namespace of the HAProxyTemplateConfig (env HAPTIC_NAMESPACE, POD_NAMESPACE)',
      )
      .option(
        '-c, --config <name>',
        'name of the HAProxyTemplateConfig (env HAPTIC_CONFIG_NAME; default haptic)',
      )
      .option('--address <ip>', 'address the HTTP listeners bind (default 0.0.0.0)')
      .option('--health-port <port>', 'health and /debug port (default 8080; 0 picks one)')
      .option('--metrics-port <port>', 'Prometheus /metrics port (default 9090; 0 picks one)')
      .option(
        '--log-level <level>',
        'debug, info, warn or error (env HAPTIC_LOG_LEVEL, LOG_LEVEL; else spec.logging.level)',
      )
      .option(
        '--identity <name>',
        'this replica in logs and the Dataplane request log (env POD_NAME)',
      )
      .option('--haproxy-bin <path>', 'HAProxy binary for validation (env HAPTIC_HAPROXY_BIN)')
      .option(
        '--module <path|package>',
        'load a Nest module from an ES module (default export) and compose it into the controller; ' +
          'repeatable. It may subscribe to events (EVENT_BUS), register metrics and template ' +
          'variables (@TemplateContext, or an exported contextProviders array)',
        collect,
      )
      .addHelpText(
        'after',
        '\nExit codes: 0 stopped by SIGTERM/SIGINT; 2 invalid flags, no Kubernetes credentials ' +
          '(no --kubeconfig, $KUBECONFIG, ~/.kube/config or in-cluster service account) or a ' +
          '--module that cannot be loaded, or an installed HAProxyTemplateConfig CRD older than ' +
          "this version (apply the chart's crds/); 1 any other start-up failure, or a shutdown " +
          'that outlasted --shutdown-timeout.\n' +
          'Example: haptic run --kubeconfig kc.yaml --module ./dist/my-module.js --module @team/haptic-ext',
      )
      .option(
        '--self-signed-certificate <namespace/name>',
        'keep a self-signed certificate in this kubernetes.io/tls Secret (create it when missing, ' +
          'renew it near its end) for the library to serve when no TLS Secret matches (env HAPTIC_SELF_SIGNED_CERTIFICATE)',
      )
      .option(
        '--shutdown-timeout <seconds>',
        `longest a shutdown on SIGTERM/SIGINT may take (lease release, status writes, in-flight deployments); past it the process exits 1 (default ${SHUTDOWN_TIMEOUT_S}; keep it below the pod's terminationGracePeriodSeconds)`,
      )
      .option('--webhook-port <port>', 'admission webhook HTTPS port (default 9443; 0 picks one)')
      .option(
        '--webhook-cert-dir <dir>',
        'folder with tls.crt and tls.key (a mounted Secret; re-read on rotation) for the webhook; without it the webhook is off (env HAPTIC_WEBHOOK_CERT_DIR)',
      )
      .action(async (flags: RunFlags) => {
        // Loaded here, not at the top: other subcommands must not pay for the controller's imports.
        const { resolveRunOptions } = await import('../../run/run-options.js');
        let options;
        const shutdownS =
          flags.shutdownTimeout === undefined ? SHUTDOWN_TIMEOUT_S : Number(flags.shutdownTimeout);
        if (!(Number.isFinite(shutdownS) && shutdownS > 0)) {
          io.err(
            `haptic run: --shutdown-timeout: a number of seconds above 0, not "${flags.shutdownTimeout}"`,
          );
          setExit(ExitCode.invalidInput);
          return;
        }
        try {
          const { config, module: _modules, shutdownTimeout: _shutdown, ...rest } = flags;
          options = resolveRunOptions({ ...rest, ...(config ? { configName: config } : {}) });
        } catch (e) {
          io.err(`haptic run: ${(e as Error).message}`);
          setExit(ExitCode.invalidInput);
          return;
        }
        const stop = signalled(); // installed before anything starts: an early SIGTERM is not lost
        const { runController } = await import('../../run/compose.js');
        const { loadExtensions } = await import('../../run/load-modules.js');
        let running;
        try {
          running = await runController(options, await loadExtensions(flags.module ?? []));
        } catch (e) {
          io.err(`haptic run: ${(e as Error).message}`);
          setExit(exitCodeOf(e));
          return;
        }
        const { WebhookServer } = await import('#webhook');
        const webhookPort = running.app.get(WebhookServer, { strict: false }).port;
        io.out(
          JSON.stringify({
            msg: 'haptic controller running',
            healthPort: running.healthPort,
            metricsPort: running.metricsPort,
            ...(webhookPort === undefined ? {} : { webhookPort }),
          }),
        );
        const signal = await stop;
        io.err(`haptic run: ${signal}: shutting down`);
        // bounded: an API server or HAProxy pod that no longer answers must not hold the process
        // until the kubelet kills it (and a second signal is not waited for)
        const limit = deadline(shutdownS);
        const ended = await Promise.race([
          running.stop().then(() => 'stopped' as const),
          limit.late,
        ]);
        limit.cancel();
        if (ended === 'late') {
          io.err(
            `haptic run: shutdown did not finish within ${shutdownS} s (an API server or HAProxy pod not answering?); exiting`,
          );
          process.exit(ExitCode.failure);
        }
        setExit(ExitCode.ok);
      });
  },
};
