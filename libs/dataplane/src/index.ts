export * from './dataplane.errors.js';
export * from './lib/client.js';
export * from './lib/deploy.js';
