export { resolveGateways } from './resolve.js';
export { poolAddresses } from './addresses.js';
export {
  gatewayModelOf,
  gatewaySettings,
  GATEWAY_WATCHED,
  DEFAULT_GATEWAY_CONTROLLER,
  type GatewaySettings,
} from './snapshot.js';
export type * from './types.js';
