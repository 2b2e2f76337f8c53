import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { KubeObject } from '#testbed/kube-sim';
import { repoRoot } from './paths.js';
import { StackError } from './stack.errors.js';

const run = promisify(execFile);

/** The Ingress template library assembled by the repository's assembler (without its validation tests). */
export function assembleIngressLibrary(): Promise<KubeObject> {
  return assembleLibrary('ingress');
}

/** A template library of helm/haptic/libraries/<name> assembled (without its validation tests). */
export async function assembleLibrary(name: string): Promise<KubeObject> {
  const root = repoRoot();
  const dir = await mkdtemp(join(tmpdir(), 'haptic-stack-lib-'));
  try {
    const out = join(dir, `${name}-library.yaml`);
    const library = join(root, 'helm/haptic/libraries', name);
    await run(
      process.execPath,
      [
        join(root, 'scripts/assemble-library.mjs'),
        '--library',
        library,
        '--without-tests',
        '--out',
        out,
      ],
      { cwd: root },
    ).catch((e: unknown) => {
      throw new StackError(`assembling the ${name} library failed`, { cause: e });
    });
    return parse(await readFile(out, 'utf8')) as KubeObject;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
