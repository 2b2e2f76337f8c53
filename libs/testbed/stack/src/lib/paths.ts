import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StackError } from './stack.errors.js';

/** The repository root, found from both the source and the dist layout (it holds bin/haptic.js). */
export function repoRoot(): string {
  for (const rel of ['../../../../../', '../../../../../../']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}bin/haptic.js`)) return dir;
  }
  throw new StackError('the haptic checkout (bin/haptic.js) was not found');
}
