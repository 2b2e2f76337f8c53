import type { CliCommand } from '../command.js';
import type { ValidateFlags } from './validate.action.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const validateCommand: CliCommand = {
  name: 'validate',
  register(program, ctx) {
    program
      .command('validate')
      .description(
        'run the embedded validation tests of a HAProxyTemplateConfig offline (exit 1 when any fails)',
      )
      .requiredOption('-f, --file <path>', 'the config file (resource or bare spec, YAML or JSON)')
      .option('--test <name>', 'run only this test')
      .option('-o, --output <format>', 'text or json', 'text')
      .option('--workers <n>', 'tests (and haproxy -c checks) run at once', '2')
      .option(
        '--haproxy-bin <path>',
        'HAProxy binary for haproxy -c (default: $HAPTIC_HAPROXY_BIN, then the project 3.0, then PATH)',
      )
      .option('--timeout <ms>', 'time limit of one haproxy -c', '30000')
      .option(
        '--env <NAME=VALUE>',
        'value for a ${NAME} the config references, e.g. POD_IP=127.0.0.1 (repeatable)',
        (v: string, acc: string[]) => [...acc, v],
        [] as string[],
      )
      .option(
        '--module <path|package>',
        'a module as for haptic run --module (repeatable): its template variables render here too',
        collect,
      )
      .action(async (flags: ValidateFlags) => {
        // loaded on use: other subcommands must not pay for the renderer and validator
        const { validate } = await import('./validate.action.js');
        ctx.setExit(await validate(flags, ctx));
      });
  },
};
