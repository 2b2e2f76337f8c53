export { resolveGateways } from './resolve.js';
export { poolAddresses } from './addresses.js';
export {
  gatewayModelOf,
  gatewaySettings,
  GATEWAY_WATCHED,
  DEFAULT_GATEWAY_CONTROLLER,
  serviceAddress,
  type GatewaySettings,
} from './snapshot.js';
export type * from './types.js';
export {
  assignServicePorts,
  gatewayServiceName,
  parsePortRange,
  type GatewayServiceType,
  type PortRange,
} from './service-ports.js';
export {
  controllerLabel,
  gatewayServiceWrites,
  type DesiredService,
  type ServiceWrite,
} from './service-writes.js';
