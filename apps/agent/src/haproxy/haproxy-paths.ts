import { join, resolve } from 'node:path';

/** Where the agent keeps HAProxy's files, all under one config directory. */
export interface AgentPaths {
  readonly dir: string;
  readonly configFile: string;
  readonly mapsDir: string;
  readonly sslDir: string;
  readonly generalDir: string;
  readonly runDir: string;
  /** The agent-owned global fragment: master-worker and the admin stats socket. */
  readonly fragmentFile: string;
  readonly masterSocket: string;
  readonly adminSocket: string;
  readonly pidFile: string;
  readonly logFile: string;
  readonly transactionsDir: string;
}

/**
 * Lays the agent's files out under `dir` (made absolute: socket paths must be). `masterSocket`
 * names the master CLI of an HAProxy the agent attaches to (another container's, on a shared
 * volume) instead of `run/master.sock`.
 */
export function agentPaths(dir: string, masterSocket?: string): AgentPaths {
  const abs = resolve(dir);
  const run = join(abs, 'run');
  return {
    dir: abs,
    configFile: join(abs, 'haproxy.cfg'),
    mapsDir: join(abs, 'maps'),
    sslDir: join(abs, 'ssl'),
    generalDir: join(abs, 'general'),
    runDir: run,
    fragmentFile: join(run, 'agent.cfg'),
    masterSocket: masterSocket === undefined ? join(run, 'master.sock') : resolve(masterSocket),
    adminSocket: join(run, 'admin.sock'),
    pidFile: join(run, 'haproxy.pid'),
    logFile: join(run, 'haproxy.log'),
    transactionsDir: join(run, 'transactions'),
  };
}

/** The fragment loaded after haproxy.cfg: what the agent needs whatever the user's config says. */
export function fragmentText(paths: AgentPaths): string {
  return [
    '# written by haptic agent: master-worker mode and the admin socket the agent drives',
    'global',
    '  master-worker',
    `  stats socket ${paths.adminSocket} mode 600 level admin`,
    '',
  ].join('\n');
}
