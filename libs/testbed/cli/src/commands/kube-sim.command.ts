import type { KubeSim } from '#testbed/kube-sim';
import { ExitCode } from '../product-cli.js';
import type { CliCommand } from '../product-cli.js';

interface KubeSimFlags {
  port: string;
  tls?: boolean;
  kubeconfigOut?: string;
  apply: string[];
  output: string;
  historyLimit?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Resolves on the first SIGTERM or SIGINT; `dispose` removes the handlers. */
function untilSignal(): { done: Promise<NodeJS.Signals>; dispose: () => void } {
  let on: (sig: NodeJS.Signals) => void = () => undefined;
  const dispose = () => {
    process.off('SIGTERM', on);
    process.off('SIGINT', on);
  };
  const done = new Promise<NodeJS.Signals>((resolve) => {
    on = (sig) => {
      dispose();
      resolve(sig);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
  return { done, dispose };
}

export const kubeSimCommand: CliCommand = {
  name: 'kube-sim',
  register(program, ctx) {
    const { io } = ctx;
    program
      .command('kube-sim')
      .description(
        'serve an in-memory Kubernetes API server on loopback (for tests, the demo and bench)',
      )
      .option('--port <n>', 'TCP port on 127.0.0.1 (0 picks a free one)', '0')
      .option('--tls', 'serve HTTPS with a generated certificate and require a bearer token')
      .option(
        '--kubeconfig-out <file>',
        'write the kubeconfig here (default: a temporary file, printed)',
      )
      .option(
        '--apply <file>',
        'apply the manifests of this YAML file at start (repeatable)',
        collect,
        [],
      )
      .option('--history-limit <n>', 'changes kept for watches before 410 Expired', '10000')
      .option('-o, --output <format>', 'text or json (what is printed once listening)', 'text')
      .action(async (flags: KubeSimFlags) => {
        const port = Number(flags.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535) {
          io.err(`haptic kube-sim: --port must be 0..65535, got "${flags.port}"`);
          return ctx.setExit(ExitCode.invalidInput);
        }
        // loaded when the command runs: the other commands do not pay for it
        const lib = await import('#testbed/kube-sim');
        const { KubeSim, KubeSimApplyError } = lib;
        // Listen for signals before anything is printed: a supervisor may stop us the moment it
        // reads the address, before a handler installed afterwards would exist.
        const signalled = untilSignal();
        let sim: KubeSim;
        try {
          sim = await KubeSim.start({
            port,
            tls: flags.tls === true,
            manifests: flags.apply,
            historyLimit: Number(flags.historyLimit ?? 10000),
            ...(flags.kubeconfigOut ? { kubeconfigPath: flags.kubeconfigOut } : {}),
          });
        } catch (e) {
          signalled.dispose();
          io.err(`haptic kube-sim: ${e instanceof Error ? e.message : String(e)}`);
          return ctx.setExit(
            e instanceof KubeSimApplyError ? ExitCode.invalidInput : ExitCode.failure,
          );
        }
        const info = {
          url: sim.url,
          kubeconfig: sim.kubeconfigPath,
          tls: flags.tls === true,
          control: `${sim.url}/kube-sim/`,
        };
        io.out(
          flags.output === 'json'
            ? JSON.stringify(info)
            : `kube-sim listening on ${sim.url}\nkubeconfig: ${sim.kubeconfigPath}`,
        );
        await signalled.done;
        await sim.stop();
        ctx.setExit(ExitCode.ok);
      });
  },
};
