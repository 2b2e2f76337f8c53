export * from './bus.js';
export * from './fake-kube-api.js';
