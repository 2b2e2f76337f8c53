import { readFileSync } from 'node:fs';
import { Global, Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { register } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { BusModule, EVENT_BUS } from '#bus';
import { parseTemplateConfigText, type TemplateConfig } from '#core';
import { METRICS_REGISTRY, type HapticBus, type LeaderElectionRunnable } from '#events';
import { FakeClock } from '#testbed/testing';
import { LeaderModule } from './leader.module.js';
import { MemoryLease } from './lib/memory-lease-store.js';

/** Leader-only work as a feature module would declare it. */
@Injectable()
class Work implements LeaderElectionRunnable {
  readonly log: string[] = [];
  needLeaderElection(): boolean {
    return true;
  }
  startLeading(): void {
    this.log.push('start');
  }
  stopLeading(deadline: AbortSignal): Promise<void> {
    this.log.push(deadline.aborted ? 'stop:abandon' : 'stop:graceful');
    return Promise.resolve();
  }
}

/** Work that runs on every replica: never started or stopped by the LeaderModule. */
@Injectable()
class EveryReplica implements LeaderElectionRunnable {
  readonly log: string[] = [];
  needLeaderElection(): boolean {
    return false;
  }
  startLeading(): void {
    this.log.push('start');
  }
  stopLeading(): Promise<void> {
    this.log.push('stop');
    return Promise.resolve();
  }
}

@Module({ providers: [Work, EveryReplica] })
class FeatureModule {}

const base = (() => {
  const parsed = parseTemplateConfigText(readFileSync('test/fixtures/config/minimal.yaml', 'utf8'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
})();

function config(leaderElection: Partial<TemplateConfig['spec']['controller']['leaderElection']>) {
  const controller = base.spec.controller;
  return {
    ...base,
    spec: {
      ...base.spec,
      controller: {
        ...controller,
        leaderElection: { ...controller.leaderElection, ...leaderElection },
      },
    },
  } as TemplateConfig;
}

describe('LeaderModule', () => {
  let ref: TestingModule | undefined;
  afterEach(async () => {
    await ref?.close();
    register.clear();
  });

  async function start(lease: MemoryLease, reachable: () => boolean, clock: FakeClock) {
    // the application's one registry, where @willsoto/nestjs-prometheus declares the metrics
    const registry = register;
    @Global()
    @Module({
      providers: [{ provide: METRICS_REGISTRY, useValue: registry }],
      exports: [METRICS_REGISTRY],
    })
    class Metrics {}
    ref = await Test.createTestingModule({
      imports: [
        BusModule,
        Metrics,
        FeatureModule,
        LeaderModule.forRoot({
          identity: 'me',
          namespace: 'haptic',
          defaultLeaseName: 'haptic',
          leaseStore: () => lease.storeFor('me', reachable),
          clock,
        }),
      ],
    }).compile();
    await ref.init();
    const bus = ref.get<HapticBus>(EVENT_BUS);
    await bus.start();
    return { bus, registry, work: ref.get(Work), other: ref.get(EveryReplica) };
  }

  it('starts declared leader-only work on gaining the Lease and abandons it at the renew deadline', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    let reachable = true;
    const { bus, registry, work, other } = await start(lease, () => reachable, clock);
    expect(bus.getState('leader.status')).toMatchObject({ isLeader: false, identity: 'me' });
    bus.setState('config.current', config({ leaseName: 'ctl' }));
    await clock.advance(10);
    expect(work.log).toEqual(['start']);
    expect(other.log).toEqual([]);
    expect(bus.getState('leader.status')).toMatchObject({
      isLeader: true,
      holder: 'me',
      mode: 'lease',
    });
    expect(lease.lease?.record.holderIdentity).toBe('me');
    expect(await registry.getSingleMetricAsString('haptic_leader')).toMatch(/haptic_leader 1/);
    reachable = false;
    await clock.advance(10_000); // renewDeadline 10s: leadership ends
    expect(work.log).toEqual(['start', 'stop:abandon']);
    expect(bus.getState('leader.status')).toMatchObject({ isLeader: false });
    expect(await registry.getSingleMetricAsString('haptic_leader')).toMatch(/haptic_leader 0/);
    expect(await registry.getSingleMetricAsString('haptic_leader_transitions_total')).toMatch(
      /to="standby"} 1/,
    );
  });

  it('at shutdown stops the work gracefully, then releases the Lease', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const { bus, work } = await start(lease, () => true, clock);
    bus.setState('config.current', config({}));
    await clock.advance(10);
    await ref!.close();
    ref = undefined;
    expect(work.log).toEqual(['start', 'stop:graceful']);
    expect(lease.lease?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
  });

  it('runs standalone when leaderElection.enabled is false, and refuses unsafe timings', async () => {
    const clock = new FakeClock();
    const lease = new MemoryLease();
    const { bus, work } = await start(lease, () => true, clock);
    bus.setState('config.current', config({ renewDeadline: '20s' }));
    await clock.advance(10);
    expect(work.log).toEqual([]); // renewDeadline beyond leaseDuration: no election runs
    expect(lease.lease).toBeUndefined();
    bus.setState('config.current', config({ enabled: false }));
    await clock.advance(10);
    expect(work.log).toEqual(['start']);
    expect(bus.getState('leader.status')).toMatchObject({ isLeader: true, mode: 'standalone' });
    expect(lease.lease).toBeUndefined();
  });
});
