import { execFile, execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './paths.js';
import { StackError } from './stack.errors.js';

/** The chart's folder in the checkout. */
export function chartDir(): string {
  return join(repoRoot(), 'helm/haptic');
}

let helmBin: string | undefined;

/** The pinned helm (scripts/tools.mjs extracts it into the checkout's tools folder on first use). */
export function helmBinary(): string {
  helmBin ??= join(
    execFileSync(process.execPath, [join(repoRoot(), 'scripts/tools.mjs')], {
      encoding: 'utf8',
    }).trim(),
    'helm',
  );
  return helmBin;
}

/** What one helm command did. */
export interface HelmRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the pinned helm against a kubeconfig, with its caches and settings in `dir` (nothing of
 * the user's helm or kubectl set-up is read or written).
 */
export class Helm {
  constructor(
    private readonly kubeconfig: string,
    private readonly dir: string,
  ) {}

  /** `helm <args>`; never throws, the caller looks at the exit code. */
  async run(args: readonly string[], timeoutMs = 180_000): Promise<HelmRun> {
    await mkdir(this.dir, { recursive: true });
    const env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: this.dir,
      KUBECONFIG: this.kubeconfig,
      KUBECACHEDIR: join(this.dir, 'kube-cache'),
      HELM_CACHE_HOME: join(this.dir, 'cache'),
      HELM_CONFIG_HOME: join(this.dir, 'config'),
      HELM_DATA_HOME: join(this.dir, 'data'),
    };
    return new Promise((resolve) => {
      execFile(
        helmBinary(),
        [...args],
        { env, timeout: timeoutMs, maxBuffer: 16 << 20 },
        (e, stdout, stderr) =>
          resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  /** `helm <args>`, throwing with helm's message when it fails. */
  async ok(args: readonly string[]): Promise<string> {
    const r = await this.run(args);
    if (r.code !== 0)
      throw new StackError(`helm ${args.join(' ')} failed (exit ${r.code}): ${r.stderr.trim()}`);
    return r.stdout;
  }
}

/** Flattens values into `--set` arguments (strings with `--set-string`, so "1" stays a string). */
export function setArgs(values: Readonly<Record<string, string | number | boolean>>): string[] {
  return Object.entries(values).flatMap(([k, v]) =>
    typeof v === 'string' ? ['--set-string', `${k}=${v}`] : ['--set', `${k}=${String(v)}`],
  );
}
