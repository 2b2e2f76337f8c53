export { StatusModule, type StatusModuleConfig } from './status.module.js';
export { StatusWriter } from './status.writer.js';
export {
  KubeStatusApi,
  type StatusApi,
  type StoredConfig,
  type ConfigStatusBody,
} from './status-api.js';
export type { StatusModuleOptions } from './status.tokens.js';
export {
  serviceAddresses,
  fixedAddresses,
  entryOf,
  type LoadBalancerIngress,
  type PublishSettings,
} from './lib/addresses.js';
export {
  desiredConditions,
  mergeConditions,
  type Condition,
  type ObservedWorld,
} from './lib/conditions.js';
export { ingressStatusWrites } from './lib/ingress-status.js';
export { EventAggregator, type EventRecord, type EventWrite } from './lib/event-aggregator.js';
export {
  resolveGateways,
  gatewayModelOf,
  gatewaySettings,
  poolAddresses,
  GATEWAY_WATCHED,
  DEFAULT_GATEWAY_CONTROLLER,
  type GatewaySettings,
  type GatewayModel,
  type GatewayInputs,
  type ResolvedGateway,
  type RouteStatus,
  type GatewayClassStatus,
  type GatewayCondition,
  assignServicePorts,
  gatewayServiceName,
  gatewayServiceWrites,
  type ServiceWrite,
} from './lib/gateway/index.js';
export { GatewayStatusWriter } from './gateway-status.writer.js';
export { KubeGatewayStatusApi, type GatewayStatusApi } from './gateway-status-api.js';
export { GATEWAY_STATUS_SOURCE, type GatewayStatusSource } from './status.tokens.js';
export {
  gatewayStatusWrites,
  type GatewayStatusWrite,
  type GatewayObjects,
} from './lib/gateway/status-writes.js';
