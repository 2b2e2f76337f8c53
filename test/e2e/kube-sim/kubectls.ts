import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The pinned kubectl (extracted by scripts/tools.mjs) and, when present, the machine's own. */
export function kubectls(): string[] {
  const pinned = join(
    execFileSync(process.execPath, [join(root, 'scripts/tools.mjs')], { encoding: 'utf8' }).trim(),
    'kubectl',
  );
  const system = (process.env.PATH ?? '')
    .split(delimiter)
    .map((d) => join(d, 'kubectl'))
    .find((p) => existsSync(p) && !p.includes('.tools'));
  return system ? [pinned, system] : [pinned];
}
