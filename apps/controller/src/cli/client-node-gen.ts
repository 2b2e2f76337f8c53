// What @kubernetes/client-node's config.js imports from its generated index, without the index
// (see client-node-hooks.ts). A test checks that config.js imports no other name from it.
export { createConfiguration } from '@kubernetes/client-node/dist/gen/configuration.js';
export { ServerConfiguration } from '@kubernetes/client-node/dist/gen/servers.js';
