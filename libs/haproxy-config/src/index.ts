export * from './haproxy-config.errors.js';
export * from './lib/cli-command.js';
export * from './lib/runtime-socket.js';
export * from './lib/servers-state.js';
export * from './lib/show-proc.js';
export * from './lib/map-file.js';
export * from './lib/config-sections.js';
