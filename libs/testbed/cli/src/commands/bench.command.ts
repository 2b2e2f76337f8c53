import type { CliCommand } from '../product-cli.js';
import type { BenchFlags } from './bench.action.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').filter(Boolean)];
}

export const benchCommand: CliCommand = {
  name: 'bench',
  register(program, ctx) {
    program
      .command('bench')
      .description(
        'bring up kube-sim, an agent with real HAProxy, echo backends and the controller, and ' +
          'measure latency, reloads, memory and scale (run from a haptic checkout)',
      )
      .option(
        '--scenario <names...>',
        'latency, floor, churn, hitless, scale, render, webhook (repeatable; default all)',
        collect,
        [],
      )
      .option(
        '--size <size>',
        'small (minutes), full (the published figures) or tiny (seconds)',
        'small',
      )
      .option(
        '--ingresses <n>',
        'Ingresses of the shared cluster (latency, floor, churn, hitless); default: the size',
      )
      .option('-o, --output <format>', 'table or json (printed on stdout)', 'table')
      .option('--reps <n>', 'repetitions of the single timings (floor, render)', '3')
      .option('--out <file>', 'write the results (JSON, full precision) here', 'haptic-bench.json')
      .option(
        '--haproxy-bin <path>',
        'HAProxy binary (default: $HAPTIC_HAPROXY_BIN, then .tools HAProxy 3.0, then PATH)',
      )
      .action(async (flags: BenchFlags) => {
        // loaded on use: other subcommands must not pay for the bench and the test-bed
        // loaded when the command runs: the other commands do not pay for it
        const lib = await import('./bench.action.js');
        const { benchAction } = lib;
        ctx.setExit(await benchAction(flags, ctx));
      });
  },
};
