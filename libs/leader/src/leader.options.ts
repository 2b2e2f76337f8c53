import type { Clock } from '#core';
import type { LeaseRef } from './lease-api.js';
import type { LeaseStore } from './lib/lease-store.js';

/** DI token of the LeaderService's options. */
export const LEADER_OPTIONS = Symbol.for('haptic.LeaderOptions');

export interface LeaderServiceOptions {
  /** This replica (the pod name in a cluster). */
  readonly identity: string;
  /** Namespace of the Lease (the controller's own). */
  readonly namespace: string;
  /** Lease name when leaderElection.leaseName is empty (the config resource's name). */
  readonly defaultLeaseName: string;
  /** Makes the store of a Lease (the Kubernetes API in production, memory in tests). */
  readonly leaseStore: (ref: LeaseRef) => LeaseStore;
  /** Monotonic clock for expiry and deadlines (tests pass a fake one). */
  readonly clock?: Clock;
  /** Standalone mode: how long in-flight work may finish at shutdown (default 10 s). */
  readonly standaloneStopGraceMs?: number;
}
