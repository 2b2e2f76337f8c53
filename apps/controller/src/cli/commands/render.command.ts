import type { CliCommand } from '../command.js';
import type { RenderFlags } from './render.action.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export const renderCommand: CliCommand = {
  name: 'render',
  register(program, ctx) {
    program
      .command('render')
      .description('render a HAProxyTemplateConfig offline from manifests on disk')
      .requiredOption('-f, --file <path>', 'the config file (resource or bare spec, YAML or JSON)')
      .requiredOption(
        '--resources <paths...>',
        'manifest files or folders (YAML or JSON; repeatable)',
      )
      .option(
        '-o, --output <dir>',
        'write haproxy.cfg, maps/, files/, ssl/ here instead of printing',
      )
      .option('--validate', 'also validate the result (structure, directive policy, haproxy -c)')
      .option('--haproxy-bin <path>', 'HAProxy binary for --validate')
      .option(
        '--module <path|package>',
        'a module as for haptic run --module (repeatable): its template variables render here too',
        collect,
      )
      .action(async (flags: RenderFlags) => {
        // loaded on use: other subcommands must not pay for the renderer and validator
        const { renderOffline } = await import('./render.action.js');
        ctx.setExit(await renderOffline(flags, ctx));
      });
  },
};
