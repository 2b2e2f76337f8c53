export * from './watch.errors.js';
export * from './lib/ports.js';
export * from './lib/kube-api.js';
export { ClientNodeKubeApi, type ClientNodeApiOptions } from './lib/client-node-api.js';
export {
  WATCH_DEFAULTS,
  type ReflectorPhase,
  type ReflectorState,
  type ReflectorTiming,
} from './lib/reflector.js';
export { type CredentialsState } from './lib/credentials.js';
export {
  WatchManager,
  type ConfigRef,
  type ConfigWatchStatus,
  type WatchListeners,
  type WatchStatus,
} from './lib/watch-manager.js';
export * from './watch.tokens.js';
export { WatchModule } from './watch.module.js';
export { WatchListener } from './watch.listener.js';
export type { WatchModuleOptions } from './watch.module-options.js';
