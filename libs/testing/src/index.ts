export * from './bus.js';
export * from './fake-clock.js';
export * from './fake-kube-api.js';
