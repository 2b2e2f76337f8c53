import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import type { Registry } from 'prom-client';
import { EVENT_BUS } from '#bus';
import { monotonicClock, type Clock, type LeaderElectionSpec } from '#core';
import { METRICS_REGISTRY, type HapticBus, type LeaderStatus } from '#events';
import type { LeaseRef } from './lease-api.js';
import { LeaderWork } from './leader-work.js';
import { leaderMetrics, type LeaderMetrics } from './leader.metrics.js';
import { LeaderElector, type LeaseObservation } from './lib/elector.js';
import type { LeaseStore } from './lib/lease-store.js';
import { electionTiming } from './lib/timing.js';

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

/**
 * Runs the election the config asks for (a Lease, or standalone when leaderElection.enabled is
 * false), publishes leader.status, and starts and stops the leader-only work with leadership.
 * At shutdown the leader stops its work (in-flight work may finish while the lease holds) and
 * releases the Lease so a standby takes over on its next attempt.
 */
@Injectable()
export class LeaderService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Leader');
  private readonly clock: Clock;
  private readonly metrics: LeaderMetrics | undefined;
  private elector: LeaderElector | undefined;
  private standalone = false;
  private key: string | undefined;
  private leadingSince: number | undefined;
  private ledMs = 0;
  private observed: (LeaseObservation & { at: string }) | undefined;
  private offs: (() => void)[] = [];
  private closing: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(LEADER_OPTIONS) private readonly options: LeaderServiceOptions,
    private readonly work: LeaderWork,
    @Optional() @Inject(METRICS_REGISTRY) registry?: Registry,
  ) {
    this.clock = options.clock ?? monotonicClock;
    this.metrics = registry ? leaderMetrics(registry, () => this.leadSeconds()) : undefined;
  }

  onModuleInit(): void {
    this.publish(false);
    this.offs.push(
      this.bus.subscribeState(
        'config.current',
        (e) => this.configure(e.payload.spec.controller.leaderElection),
        { name: 'leader' },
      ),
    );
  }

  async onModuleDestroy(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    await (this.closing ??= this.teardown());
  }

  /** Total time this replica has led, in seconds. */
  leadSeconds(): number {
    const now = this.leadingSince === undefined ? 0 : this.clock.now() - this.leadingSince;
    return (this.ledMs + now) / 1000;
  }

  private async configure(spec: Readonly<LeaderElectionSpec>): Promise<void> {
    if (this.closing) return;
    if (!spec.enabled) {
      if (this.key === 'standalone') return;
      await this.teardown();
      this.key = 'standalone';
      this.standalone = true;
      this.logger.log('leader election disabled: this replica leads alone (run one replica)');
      await this.gained();
      return;
    }
    const timing = electionTiming(spec);
    if (!timing.ok) {
      this.logger.error(
        `${timing.problem}; ${this.elector ? 'the running election keeps its timing' : 'no election runs until it is fixed'}`,
      );
      return;
    }
    const ref = {
      namespace: this.options.namespace,
      name: spec.leaseName || this.options.defaultLeaseName,
    };
    const key = `lease ${ref.namespace}/${ref.name}`;
    if (key === this.key && this.elector) {
      this.elector.setTiming(timing.timing);
      return;
    }
    await this.teardown();
    this.key = key;
    this.elector = new LeaderElector({
      identity: this.options.identity,
      store: this.options.leaseStore(ref),
      clock: this.clock,
      timing: timing.timing,
      onStartedLeading: () => this.gained(),
      onStoppedLeading: (deadline, reason) => this.lost(deadline, reason),
      onObserved: (o) => {
        this.observed = { ...o, at: new Date().toISOString() };
        this.publish(this.leadingSince !== undefined);
      },
    });
    this.logger.log(`campaigning for ${key} as ${this.options.identity}`);
    this.elector.start();
  }

  private async gained(): Promise<void> {
    this.leadingSince = this.clock.now();
    this.metrics?.leader.set(1);
    this.metrics?.transitions.inc({ to: 'leader' });
    this.publish(true);
    this.logger.log(
      `${this.options.identity} leads: starting ${this.work.runnables().length} leader-only services`,
    );
    await this.work.start();
  }

  private async lost(deadline: AbortSignal, reason: string): Promise<void> {
    if (this.leadingSince !== undefined) this.ledMs += this.clock.now() - this.leadingSince;
    this.leadingSince = undefined;
    this.metrics?.leader.set(0);
    this.metrics?.transitions.inc({ to: 'standby' });
    this.publish(false);
    this.logger.warn(
      `${this.options.identity} no longer leads (${reason}): stopping leader-only work`,
    );
    await this.work.stop(deadline);
  }

  /** Stops the current election or standalone leadership (releasing a held Lease). */
  private async teardown(): Promise<void> {
    const elector = this.elector;
    this.elector = undefined;
    this.key = undefined;
    if (elector) await elector.stop({ release: true });
    if (this.standalone) {
      this.standalone = false;
      const grace = AbortSignal.timeout(this.options.standaloneStopGraceMs ?? 10_000);
      await this.lost(grace, 'shutting down');
    }
  }

  private publish(isLeader: boolean): void {
    const o = this.observed;
    const status: LeaderStatus = {
      isLeader,
      identity: this.options.identity,
      mode: this.standalone || this.key === 'standalone' ? 'standalone' : 'lease',
      ...(o ? { holder: o.holder, observedRenewTime: o.renewTime, observedAt: o.at } : {}),
    };
    this.bus.setState('leader.status', status);
  }
}
