export { LeaderModule, type LeaderModuleOptions } from './leader.module.js';
export { LeaderService } from './leader.service.js';
export { KubeLeaseStore, type LeaseRef } from './lease-api.js';
export {
  LeaderElector,
  microTime,
  timingProblem,
  type ElectionTiming,
  type LeaseObservation,
} from './lib/elector.js';
export type {
  LeaseRecord,
  LeaseStore,
  LeaseWriteResult,
  ObservedLease,
} from './lib/lease-store.js';
export { MemoryLease } from './lib/memory-lease-store.js';
