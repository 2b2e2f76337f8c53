import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StackError } from './stack.errors.js';

/** The repository root, found from both the source and the dist layout (it holds bin/haptic.js). */
export function repoRoot(): string {
  for (const rel of ['../../../../', '../../../../../']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(`${dir}bin/haptic.js`)) return dir;
  }
  throw new StackError('the haptic checkout (bin/haptic.js) was not found');
}

/** A random block of five /24s of loopback addresses for pods, so two stacks on one machine do not collide. */
export function randomPodRange(): { first: string; last: string } {
  const third = 40 + Math.floor(Math.random() * 200);
  return { first: `127.0.${third}.1`, last: `127.0.${third + 4}.254` };
}
