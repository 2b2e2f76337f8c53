import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '#core';
import { KubeLeaseStore, type LeaseRef } from './lease-api.js';
import { LeaderWork } from './leader-work.js';
import { leaderMetrics, LeaderTenure } from './leader.metrics.js';
import { LEADER_OPTIONS, type LeaderServiceOptions } from './leader.options.js';
import { LeaderService } from './leader.service.js';
import type { LeaseStore } from './lib/lease-store.js';

export interface LeaderModuleOptions {
  readonly identity: string;
  readonly namespace: string;
  readonly defaultLeaseName: string;
  /** The API the Lease lives in; or `leaseStore` (tests). */
  readonly kubeConfig?: KubeConfig;
  readonly leaseStore?: (ref: LeaseRef) => LeaseStore;
  readonly clock?: Clock;
}

/**
 * LeaderModule: Lease election from spec.controller.leaderElection; publishes leader.status and
 * starts/stops every provider that declares it needs leadership (LeaderElectionRunnable).
 * Needs the global BusModule; its metrics are providers on the application's registry.
 */
@Module({})
export class LeaderModule {
  static forRoot(options: LeaderModuleOptions): DynamicModule {
    const { kubeConfig, leaseStore } = options;
    const store =
      leaseStore ??
      (kubeConfig
        ? (ref: LeaseRef) => new KubeLeaseStore(kubeConfig, ref)
        : () => {
            throw new Error('LeaderModule needs a kubeConfig or a leaseStore');
          });
    const serviceOptions: LeaderServiceOptions = {
      identity: options.identity,
      namespace: options.namespace,
      defaultLeaseName: options.defaultLeaseName,
      leaseStore: store,
      ...(options.clock ? { clock: options.clock } : {}),
    };
    return {
      module: LeaderModule,
      imports: [DiscoveryModule],
      providers: [
        { provide: LEADER_OPTIONS, useValue: serviceOptions },
        LeaderWork,
        LeaderTenure,
        ...leaderMetrics,
        LeaderService,
      ],
      exports: [LeaderService],
    };
  }
}
