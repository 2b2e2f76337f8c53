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
