export * from './lib/haproxy-bin.errors.js';
export * from './lib/resolve.js';
export * from './lib/version.js';
export * from './lib/dialect.js';
