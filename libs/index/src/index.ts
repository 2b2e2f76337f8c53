export * from './index.errors.js';
export * from './lib/types.js';
export { keyPart } from './lib/keys.js';
export { DEFAULT_CACHE_OPTIONS, type CacheOptions } from './lib/cache.js';
export {
  ResourceIndex,
  type ChangeListener,
  type IndexChange,
  type ConfigureResult,
  type ResourceIndexOptions,
} from './lib/resource-index.js';
export { snapshotOf } from './lib/snapshot-of.js';
export * from './index.tokens.js';
export { IndexModule, type IndexModuleOptions } from './index.module.js';
export { IndexListener } from './index.listener.js';
