export * from './bus.js';
export * from './fake-clock.js';
export * from './fake-kube-api.js';
export * from './lib/haproxy-cli.js';
export * from './lib/haproxy-matrix.js';
export * from './lib/haproxy-process.js';
export * from './kube-api-call.js';
export * from './agent-pod.js';
