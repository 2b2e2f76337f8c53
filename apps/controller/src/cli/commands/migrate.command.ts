import type { CliCommand } from '../command.js';
import type { MigrateFlags } from './migrate.action.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const migrateCommand: CliCommand = {
  name: 'migrate',
  register(program, ctx) {
    program
      .command('migrate')
      .description(
        'report what haptic does with the annotations of Ingresses written for another controller ' +
          '(exit 0 all honoured, 3 some with a deviation, 4 any refused, not yet honoured or unknown)',
      )
      .requiredOption(
        '--from <controller>',
        'the controller the Ingresses were written for: ingress-nginx',
      )
      .option(
        '-f, --file <path>',
        'a YAML or JSON file of Ingresses, e.g. `kubectl get ingress -A -o yaml` (repeatable)',
        collect,
      )
      .option('--kubeconfig <file>', 'read the Ingresses from this cluster instead of files')
      .option('-A, --all-namespaces', 'with --kubeconfig: every namespace')
      .option(
        '-n, --namespace <ns>',
        "with --kubeconfig: this namespace (default: the context's, else default)",
      )
      .option('-o, --output <format>', 'text or json', 'text')
      .action(async (flags: MigrateFlags) => {
        // loaded on use: other subcommands must not pay for the renderer
        const { migrate } = await import('./migrate.action.js');
        ctx.setExit(await migrate(flags, ctx));
      });
  },
};
