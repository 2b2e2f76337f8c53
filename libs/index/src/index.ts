export * from './index.errors.js';
export * from './lib/types.js';
export { keyPart } from './lib/keys.js';
export { DEFAULT_CACHE_OPTIONS, type CacheOptions } from './lib/cache.js';
export {
  ResourceIndex,
  type ChangeListener,
  type ConfigureResult,
  type ResourceIndexOptions,
} from './lib/resource-index.js';
