import type { CliCommand } from '../command.js';
import { VERSION } from '../version.js';

export const versionCommand: CliCommand = {
  name: 'version',
  register(program, { io }) {
    program
      .command('version')
      .description('print version information')
      .option('-o, --output <format>', 'text or json', 'text')
      .action((opts: { output: string }) => {
        const info = {
          version: VERSION,
          node: process.version,
          platform: `${process.platform}/${process.arch}`,
        };
        io.out(
          opts.output === 'json'
            ? JSON.stringify(info)
            : `haptic ${info.version} (node ${info.node}, ${info.platform})`,
        );
      });
  },
};
