export * from './bus.js';
export * from './fake-clock.js';
