import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { resolveHaproxyBinary } from '#haproxy-bin';
import type { AgentContext } from './agent-context.js';
import { createApiServer } from './api/server.js';
import { agentPaths, fragmentText } from './haproxy/haproxy-paths.js';
import { HaproxyProcess } from './haproxy/haproxy-process.js';
import { detectHaproxyVersion, type HaproxyVersion } from './haproxy/haproxy-version.js';
import { ConfigFile, withVersion, writeAtomic } from './lib/config-file.js';
import { Credentials, type CredentialSource } from './lib/credentials.js';
import { Mutex } from './lib/mutex.js';
import { Reloader, type ReloadRecord } from './lib/reloader.js';
import { RequestLog } from './lib/request-log.js';
import { Transactions } from './lib/transactions.js';

/** How to run one agent. */
export interface AgentOptions {
  readonly configDir: string;
  /** Port for the API (0 = any free port). */
  readonly port: number;
  /** Address the API binds to (default 127.0.0.1); also HAProxy's POD_IP unless `podIp` is set. */
  readonly address?: string;
  readonly podIp?: string;
  /** HAProxy binary (default: HAPTIC_HAPROXY_BIN, then the project's HAProxy 3.0, then PATH). */
  readonly haproxyBin?: string;
  readonly credentials: CredentialSource;
  /** Reloads requested within this window share one reload (default 0: at once, still one per turn). */
  readonly reloadDelayMs?: number;
  readonly agentVersion?: string;
  readonly log?: (line: string) => void;
  /** How often to check that the HAProxy master still runs (restarted if not; default 1000 ms). */
  readonly watchdogMs?: number;
  /** Serve HTTPS with this certificate and key (PEM files), as the real API's --tls-* flags. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** The Dataplane API version to speak (default '3.4'; '3.0' has no 3.2+ paths). */
  readonly apiVersion?: '3.0' | '3.4';
  /** The configuration to start from when the config dir has no haproxy.cfg (default: a minimal one). */
  readonly bootstrapConfigFile?: string;
  /**
   * Attach mode: the master CLI socket of an HAProxy someone else runs (the pod's HAProxy
   * container, started on this config dir with `-W -S <socket> -f haproxy.cfg -f run/agent.cfg`).
   * The agent then never starts, restarts or stops HAProxy; it drives it through that socket.
   */
  readonly masterSocket?: string;
}

/** A running agent. */
export interface RunningAgent {
  readonly url: string;
  readonly port: number;
  readonly address: string;
  readonly configDir: string;
  readonly haproxyVersion: HaproxyVersion;
  /** HAProxy's master PID (and whether it was adopted from a previous agent). */
  readonly masterPid: number;
  readonly adopted: boolean;
  readonly context: AgentContext;
  /** The implemented API operations (`METHOD /path/{param}`). */
  readonly routes: readonly { method: string; template: string }[];
  /** Recent API requests: who changed what, and when. */
  readonly requests: RequestLog;
  /** Stops the API; stops HAProxy too unless `keepHaproxy` (to hand it to the next agent). */
  close(options?: { keepHaproxy?: boolean }): Promise<void>;
}

/**
 * The HAProxy binary to use, through haptic's one switch (#haproxy-bin): explicit, else
 * HAPTIC_HAPROXY_BIN, else the project's HAProxy 3.0 when present, else `haproxy` on PATH.
 */
export function resolveHaproxyBin(explicit?: string): string {
  return resolveHaproxyBinary(explicit);
}

const BOOTSTRAP = [
  'global',
  '  log stderr format raw local0 notice',
  'defaults',
  '  mode http',
  '  timeout connect 5s',
  '  timeout client 30s',
  '  timeout server 30s',
  '',
].join('\n');

/**
 * Lays out a config dir for an HAProxy started by someone else: haproxy.cfg (the bootstrap unless
 * one is there) and the agent fragment, which that HAProxy must load after haproxy.cfg.
 */
export function prepareConfigDir(
  configDir: string,
  options: { masterSocket?: string; bootstrapConfigFile?: string } = {},
): { configFile: string; fragmentFile: string } {
  const paths = agentPaths(configDir, options.masterSocket);
  prepareDir(paths, options.bootstrapConfigFile);
  return { configFile: paths.configFile, fragmentFile: paths.fragmentFile };
}

function prepareDir(paths: ReturnType<typeof agentPaths>, bootstrapFile?: string): void {
  for (const d of [paths.dir, paths.mapsDir, paths.sslDir, paths.generalDir, paths.runDir]) {
    mkdirSync(d, { recursive: true });
  }
  // Restart safety: an existing haproxy.cfg (the last configuration pushed) is kept as is.
  if (!existsSync(paths.configFile)) {
    const bootstrap = bootstrapFile === undefined ? BOOTSTRAP : readFileSync(bootstrapFile, 'utf8');
    writeAtomic(paths.configFile, withVersion(bootstrap, 1));
  }
  writeFileSync(paths.fragmentFile, fragmentText(paths));
}

/** Starts (or adopts) HAProxy in `configDir` and serves the Dataplane API subset. */
export async function startAgent(options: AgentOptions): Promise<RunningAgent> {
  const log = options.log ?? (() => {});
  const paths = agentPaths(options.configDir, options.masterSocket);
  const bin = resolveHaproxyBin(options.haproxyBin);
  const credentials = new Credentials(options.credentials);
  const version = await detectHaproxyVersion(bin);
  prepareDir(paths, options.bootstrapConfigFile);
  const address = options.address ?? '127.0.0.1';
  const haproxy = new HaproxyProcess({
    bin,
    paths,
    version,
    podIp: options.podIp ?? address,
    attach: options.masterSocket !== undefined,
    onRuntimeMessage: (m) => {
      const line = runtimeLogLine(m);
      if (line !== undefined) log(line);
    },
  });
  await haproxy.startOrAdopt();
  log(
    `haproxy ${version.full} master pid ${haproxy.pid} (${haproxy.attached ? `attached on ${paths.masterSocket}` : haproxy.adopted ? 'adopted' : 'started'})`,
  );
  if (haproxy.attached && haproxy.masterVersion !== version.full)
    log(
      `warning: the attached HAProxy runs ${haproxy.masterVersion}, this agent validates and picks its reload dialect with ${version.full} (${bin}): run the same version in both containers`,
    );
  const haproxyLock = new Mutex();
  // runtime changes queue their write-through; a reload reads the file, so it writes them first
  const config = new ConfigFile(paths.configFile, (e) =>
    log(
      `error: writing runtime changes to ${paths.configFile} failed (retried before the next reload or read): ${String(e)}`,
    ),
  );
  const historyFile = join(paths.runDir, 'reloads.json');
  const reloader: Reloader = new Reloader(
    () => {
      config.flush();
      return haproxy.reload();
    },
    haproxyLock,
    options.reloadDelayMs ?? 0,
    (r) => {
      log(`reload ${r.id} ${r.status}`);
      writeAtomic(historyFile, JSON.stringify(reloader.list()));
    },
    readHistory(historyFile),
  );
  const context: AgentContext = {
    paths,
    haproxy,
    config,
    configLock: new Mutex(),
    haproxyLock,
    reloader,
    transactions: new Transactions(),
    startedAt: new Date(),
    agentVersion: options.agentVersion ?? '0.0.0',
    apiVersion: options.apiVersion ?? '3.4',
  };
  const requests = new RequestLog();
  const tls = options.tls
    ? { cert: readFileSync(options.tls.certFile), key: readFileSync(options.tls.keyFile) }
    : undefined;
  const { server, router } = createApiServer(context, credentials, requests, tls);
  await listen(server, options.port, address);
  const port = (server.address() as AddressInfo).port;
  const watchdog = startWatchdog(haproxy, haproxyLock, options.watchdogMs ?? 1000, log);
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    address,
    configDir: paths.dir,
    haproxyVersion: version,
    masterPid: haproxy.pid,
    adopted: haproxy.adopted,
    context,
    routes: router.list(),
    requests,
    async close(opts = {}) {
      watchdog.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await reloader.close().catch(() => undefined);
      try {
        config.flush(); // runtime changes still queued reach the file the next HAProxy start reads
      } catch (e) {
        log(`error: writing runtime changes to ${paths.configFile} failed: ${String(e)}`);
      }
      if (!opts.keepHaproxy) await haproxy.stop();
    },
  };
}

function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Restart safety while the agent runs: if the HAProxy master disappears (killed, crashed), start
 * it again on the last configuration on disk. Runs under the HAProxy lock, like reloads.
 */
function startWatchdog(
  haproxy: HaproxyProcess,
  lock: Mutex,
  everyMs: number,
  log: (line: string) => void,
): { stop(): void } {
  let stopped = false;
  if (haproxy.attached) return watchAttached(haproxy, lock, everyMs, log);
  const timer = setInterval(() => {
    void lock.run(async () => {
      if (stopped || haproxy.masterAlive()) return;
      log(`haproxy master ${haproxy.pid} is gone: restarting it on the last configuration`);
      await haproxy.startOrAdopt().then(
        () => log(`haproxy restarted, master pid ${haproxy.pid}`),
        (e: unknown) =>
          log(`haproxy restart failed: ${e instanceof Error ? e.message : String(e)}`),
      );
    });
  }, everyMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * Attach mode: the HAProxy container is restarted by the kubelet, not by the agent (it starts
 * again on the last haproxy.cfg of the shared volume); the agent says when it loses and finds
 * the master again.
 */
function watchAttached(
  haproxy: HaproxyProcess,
  lock: Mutex,
  everyMs: number,
  log: (line: string) => void,
): { stop(): void } {
  let stopped = false;
  let up = true;
  const timer = setInterval(() => {
    void lock.run(async () => {
      if (stopped) return;
      const now = await haproxy.refreshAttached();
      if (now !== up)
        log(
          now
            ? `haproxy master answers again, pid ${haproxy.pid}`
            : `haproxy master on ${haproxy.master.path} does not answer: waiting for its container`,
        );
      up = now;
    });
  }, everyMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * The log line of one runtime message that changes state: the command line exactly as sent (its
 * arguments escaped), and the number of payload lines; reads (`show ...`) are not logged.
 */
export function runtimeLogLine(message: string): string | undefined {
  const [command = '', ...rest] = message.split('\n');
  if (/^(@!?\d+\s+)?show\s/.test(command) || command.trim() === '') return undefined;
  const payload = rest.filter((l) => l !== '').length;
  if (payload > 0 && !command.endsWith('<<'))
    return `runtime: ${command} (unexpected: ${payload} more lines)`;
  return `runtime: ${command}${payload > 0 ? ` (${payload} payload lines)` : ''}`;
}

/** The reload history a previous agent run left (empty when none or unreadable). */
function readHistory(file: string): ReloadRecord[] {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(v) ? (v as ReloadRecord[]) : [];
  } catch {
    return [];
  }
}
