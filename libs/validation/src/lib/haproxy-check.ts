import { spawn } from 'node:child_process';
import type { CheckTree } from './check-tree.js';
import { Limiter } from './limiter.js';

/** How `haproxy -c` is run. */
export interface HaproxyCheckOptions {
  /** Absolute path of the HAProxy binary. */
  readonly binary: string;
  /** Kill the checker after this long (it is then reported as failed). */
  readonly timeoutMs: number;
  /**
   * Values for environment variables the config references (`"${POD_IP}"`). Only variables the
   * config names are passed; nothing of the controller's own environment is inherited.
   */
  readonly env?: Readonly<Record<string, string>>;
}

/** What one `haproxy -c` run said. */
export interface HaproxyCheckRun {
  readonly valid: boolean;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  /** stdout and stderr, interleaved, capped at OUTPUT_CAP bytes. */
  readonly output: string;
  readonly durationMs: number;
}

const OUTPUT_CAP = 64 * 1024;

/** Names of environment variables a config refers to (`$NAME`, `${NAME}`, `.if defined(NAME)`). */
export function referencedEnv(config: string): string[] {
  const names = new Set<string>();
  for (const m of config.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) if (m[1]) names.add(m[1]);
  for (const m of config.matchAll(/defined\(([A-Za-z_][A-Za-z0-9_]*)\)/g))
    if (m[1]) names.add(m[1]);
  return [...names].sort();
}

/** The whole environment the checker gets: referenced variables with a given value, nothing else. */
export function sandboxEnv(
  config: string,
  values: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of referencedEnv(config)) {
    const v = values[name];
    if (v !== undefined) env[name] = v;
  }
  return env;
}

/**
 * Runs `haproxy -c -f haproxy.cfg` on a check tree: empty environment except the allowed
 * variables, the tree as working directory, own process group (killed whole on timeout).
 */
export function runHaproxyCheck(
  tree: CheckTree,
  config: string,
  opts: HaproxyCheckOptions,
  configPath: string = tree.configPath,
): Promise<HaproxyCheckRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(opts.binary, ['-c', '-f', configPath], {
      cwd: tree.root,
      env: sandboxEnv(config, opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const collect = (b: Buffer): void => {
      if (output.length < OUTPUT_CAP)
        output += b.toString('utf8').slice(0, OUTPUT_CAP - output.length);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs);
    const finish = (exitCode: number | null, extra = ''): void => {
      clearTimeout(timer);
      const durationMs = performance.now() - started;
      resolve({
        valid: exitCode === 0 && !timedOut,
        exitCode,
        timedOut,
        output: output + extra,
        durationMs,
      });
    };
    child.on('error', (e) =>
      finish(null, `\n[ALERT] could not start ${opts.binary}: ${e.message}`),
    );
    child.on('close', (code) => finish(code));
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A checker shared by callers so that at most `concurrency` `haproxy -c` run at once. */
export class HaproxyChecker {
  private readonly limiter: Limiter;
  constructor(
    readonly options: HaproxyCheckOptions,
    concurrency = 2,
  ) {
    this.limiter = new Limiter(concurrency);
  }

  /** Runs the check when a slot is free (on `configPath`, a part of `config`, when given). */
  check(tree: CheckTree, config: string, configPath?: string): Promise<HaproxyCheckRun> {
    return this.limiter.run(() => runHaproxyCheck(tree, config, this.options, configPath));
  }
}
