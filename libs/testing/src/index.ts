export * from './bus.js';
