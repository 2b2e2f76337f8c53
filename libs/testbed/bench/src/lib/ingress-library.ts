import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseTemplateConfigText, type TemplateConfig } from '#core';

const run = promisify(execFile);

/**
 * The default Ingress library, assembled by the project's own assembler
 * (`scripts/assemble-library.mjs --without-tests`, what `npm run assemble:ingress` runs) from the
 * repository at `root`, and parsed like any HAProxyTemplateConfig.
 */
export async function loadIngressLibrary(root: string): Promise<TemplateConfig> {
  const script = join(root, 'scripts/assemble-library.mjs');
  const { stdout } = await run(process.execPath, [script, '--without-tests'], {
    cwd: root,
    maxBuffer: 16 * 1024 * 1024,
  });
  const parsed = parseTemplateConfigText(stdout);
  if (!parsed.ok) {
    const why = parsed.problems.map((p) => `${p.path}: ${p.reason}`).join('; ');
    throw new Error(`the assembled Ingress library is not a valid config: ${why}`);
  }
  return parsed.config;
}
