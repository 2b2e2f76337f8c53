import { ExitCode } from './cli-io.js';
import type { CliContext } from './command.js';

/**
 * Loads a test-bed library (kube-sim, node-sim, echo, bench) when its command runs. The runtime
 * image leaves these libraries out, so there the command fails with a clear message instead of
 * every command paying for them at start.
 */
export async function loadTestBed<T>(
  command: string,
  ctx: CliContext,
  load: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await load();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    ctx.io.err(
      `haptic ${command}: not part of this installation (the image carries the controller and ` +
        `the agent only; the test bed runs from a checkout): ${(e as Error).message}`,
    );
    ctx.setExit(ExitCode.failure);
    return undefined;
  }
}
