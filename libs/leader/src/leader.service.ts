import {
  Inject,
  Injectable,
  Logger,
  type OnModuleDestroy,
  type OnModuleInit,
} from '@nestjs/common';
import { InjectMetric } from '@willsoto/nestjs-prometheus';
import type { Counter, Gauge } from 'prom-client';
import { EVENT_BUS } from '#bus';
import { monotonicClock, type Clock, type LeaderElectionSpec } from '#core';
import type { HapticBus, LeaderStatus } from '#events';
import { LeaderWork } from './leader-work.js';
import { LEADER_GAUGE, LEADER_TRANSITIONS, LeaderTenure } from './leader.metrics.js';
import { LEADER_OPTIONS, type LeaderServiceOptions } from './leader.options.js';
import { LeaderElector, type LeaseObservation, type ReleaseOutcome } from './lib/elector.js';
import { electionTiming } from './lib/timing.js';

export { LEADER_OPTIONS, type LeaderServiceOptions } from './leader.options.js';

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
  private elector: LeaderElector | undefined;
  private standalone = false;
  private key: string | undefined;
  private leadingSince: number | undefined;
  private observed: (LeaseObservation & { at: string }) | undefined;
  private offs: (() => void)[] = [];
  private closing: Promise<void> | undefined;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @Inject(LEADER_OPTIONS) private readonly options: LeaderServiceOptions,
    private readonly work: LeaderWork,
    private readonly tenure: LeaderTenure,
    @InjectMetric(LEADER_GAUGE) private readonly leaderGauge: Gauge,
    @InjectMetric(LEADER_TRANSITIONS) private readonly transitions: Counter,
  ) {
    this.clock = options.clock ?? monotonicClock;
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
    this.tenure.begin();
    this.leaderGauge.set(1);
    this.transitions.inc({ to: 'leader' });
    this.publish(true);
    this.logger.log(
      `${this.options.identity} leads: starting ${this.work.runnables().length} leader-only services`,
    );
    await this.work.start();
  }

  private async lost(deadline: AbortSignal, reason: string): Promise<void> {
    this.leadingSince = undefined;
    this.tenure.end();
    this.leaderGauge.set(0);
    this.transitions.inc({ to: 'standby' });
    this.publish(false);
    this.logger.warn(
      `${this.options.identity} no longer leads (${reason}): stopping leader-only work`,
    );
    await this.work.stop(deadline);
  }

  /** Stops the current election or standalone leadership (releasing a held Lease). */
  private async teardown(): Promise<void> {
    const elector = this.elector;
    const key = this.key;
    this.elector = undefined;
    this.key = undefined;
    if (elector) this.logRelease(await elector.stop({ release: true }), key);
    if (this.standalone) {
      this.standalone = false;
      const grace = AbortSignal.timeout(this.options.standaloneStopGraceMs ?? 10_000);
      await this.lost(grace, 'shutting down');
    }
  }

  private logRelease(outcome: ReleaseOutcome, key: string | undefined): void {
    const { release } = outcome;
    if (!release) return;
    const lease = key ?? 'the Lease';
    if (release.ok) this.logger.log(`${this.options.identity} released ${lease}`);
    else
      this.logger.warn(
        `${this.options.identity} could not release ${lease} (${release.reason ?? 'unknown'}): ` +
          'it names this replica until it expires',
      );
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
