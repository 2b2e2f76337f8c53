export * from './dataplane.errors.js';
export * from './lib/client.js';
export * from './lib/fleet.js';
export { DataplaneModule } from './dataplane.module.js';
export { DataplaneListener, type DataplaneModuleOptions } from './dataplane.listener.js';
export * from './lib/sync-plan.js';
export * from './lib/sync-engine.js';
export * from './lib/read-back.js';
