import type { CliCommand } from '../command.js';
import type { SyncFlags } from './sync.action.js';

export const syncCommand: CliCommand = {
  name: 'sync',
  register(program, ctx) {
    program
      .command('sync')
      .description(
        'apply what `haptic render -o DIR` wrote to one Dataplane API, runtime first (one reload at most)',
      )
      .requiredOption('--url <url>', 'Dataplane API base URL, e.g. http://10.0.0.5:5555')
      .requiredOption('--username <user>', 'API user')
      .requiredOption('--password-file <file>', 'file holding the API password')
      .requiredOption('--dir <dir>', 'the directory `haptic render -o` wrote')
      .option('-o, --output <format>', 'text or json', 'text')
      .action(async (flags: SyncFlags) => {
        const { sync } = await import('./sync.action.js');
        ctx.setExit(await sync(flags, ctx));
      });
  },
};
