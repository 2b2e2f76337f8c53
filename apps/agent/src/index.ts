export { ApiError, AgentCredentialsError, HaproxyProcessError } from './agent.errors.js';
export {
  prepareConfigDir,
  resolveHaproxyBin,
  runtimeLogLine,
  startAgent,
  type AgentOptions,
  type RunningAgent,
} from './agent.js';
export {
  parseHaproxyVersion,
  detectHaproxyVersion,
  hasSyncReload,
  type HaproxyVersion,
} from './haproxy/haproxy-version.js';
export { parseUserlist, type CredentialSource } from './lib/credentials.js';
export type { RequestLogEntry } from './lib/request-log.js';
