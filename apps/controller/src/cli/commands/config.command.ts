import { readFile } from 'node:fs/promises';
import { parseTemplateConfigText, type FieldProblem, type TemplateConfig } from '#core';
import { ExitCode } from '../cli-io.js';
import type { CliCommand, CliContext } from '../command.js';

interface CheckOptions {
  readonly file: string;
  readonly output: 'text' | 'json';
}

/** One-line summary of a valid config. */
function summary(config: TemplateConfig): string {
  const s = config.spec;
  const count = (r: object) => Object.keys(r).length;
  const name = config.source.name
    ? `${config.source.namespace ?? 'default'}/${config.source.name}`
    : '(bare spec)';
  return (
    `valid: ${name}: ${count(s.watchedResources)} watched resources (${Object.keys(s.watchedResources).join(', ')}), ` +
    `${count(s.templateSnippets)} snippets, ${count(s.maps)} maps, ${count(s.files)} files, ` +
    `${count(s.sslCertificates)} certificates, ${count(s.validationTests)} validation tests`
  );
}

async function check(opts: CheckOptions, ctx: CliContext): Promise<void> {
  const { io } = ctx;
  const setExit = (code: number) => ctx.setExit(code);
  let text: string;
  try {
    text = await readFile(opts.file, 'utf8');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(e);
    report(opts, [{ path: '(file)', reason: `${opts.file}: ${reason}` }], io.out, io.err);
    setExit(ExitCode.invalidInput);
    return;
  }
  const result = parseTemplateConfigText(text);
  if (result.ok) {
    io.out(
      opts.output === 'json'
        ? JSON.stringify({ valid: true, file: opts.file, summary: summary(result.config) })
        : summary(result.config),
    );
    setExit(ExitCode.ok);
    return;
  }
  report(opts, result.problems, io.out, io.err);
  setExit(ExitCode.invalidInput);
}

function report(
  opts: CheckOptions,
  problems: readonly FieldProblem[],
  out: (s: string) => void,
  err: (s: string) => void,
): void {
  if (opts.output === 'json') {
    out(JSON.stringify({ valid: false, file: opts.file, problems }));
    return;
  }
  err(`${opts.file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  for (const p of problems) err(`  ${p.path}: ${p.reason}`);
}

export const configCommand: CliCommand = {
  name: 'config',
  register(program, ctx) {
    const config = program.command('config').description('work with HAProxyTemplateConfig files');
    config
      .command('check')
      .description(
        'check a HAProxyTemplateConfig (resource or bare spec, YAML or JSON) and list every problem',
      )
      .requiredOption('-f, --file <path>', 'the config file')
      .option('-o, --output <format>', 'text or json', 'text')
      .action(async (opts: { file: string; output: string }) => {
        if (opts.output !== 'text' && opts.output !== 'json') {
          ctx.io.err(`haptic config check: --output must be text or json, not ${opts.output}`);
          ctx.setExit(ExitCode.invalidInput);
          return;
        }
        await check({ file: opts.file, output: opts.output }, ctx);
      });
  },
};
