import { type ConfigFile } from './lib/config-file.js';
import type { AgentPaths } from './haproxy/haproxy-paths.js';
import type { HaproxyProcess } from './haproxy/haproxy-process.js';
import type { Mutex } from './lib/mutex.js';
import type { Reloader } from './lib/reloader.js';
import type { Transactions } from './lib/transactions.js';

/** Everything the API handlers share. */
export interface AgentContext {
  readonly paths: AgentPaths;
  readonly haproxy: HaproxyProcess;
  readonly config: ConfigFile;
  /** Serialises configuration-file writes (version check + validate + write). */
  readonly configLock: Mutex;
  /** Serialises reloads and runtime commands, so no command hits a worker being replaced. */
  readonly haproxyLock: Mutex;
  readonly reloader: Reloader;
  readonly transactions: Transactions;
  readonly startedAt: Date;
  readonly agentVersion: string;
  /**
   * The Dataplane API version the agent speaks: '3.4' (default) serves the 3.2+ paths (runtime
   * certificates and crt-lists, storage crt-lists); '3.0' answers 404 there, as a 3.0 sidecar.
   */
  readonly apiVersion: '3.0' | '3.4';
}
