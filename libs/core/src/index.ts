export * from './lib/errors.js';
