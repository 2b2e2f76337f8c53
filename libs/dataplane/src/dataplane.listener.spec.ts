import { SchedulerRegistry } from '@nestjs/schedule';
import { Counter, Gauge, Histogram } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createTestBus } from '#testbed/testing';
import { DataplaneListener } from './dataplane.listener.js';
import { Fleet, type FleetOptions } from './lib/fleet.js';
import {
  DEPLOYMENT_DURATION,
  DEPLOYMENTS_TOTAL,
  LAST_SUCCESS,
  RELOADS_TOTAL,
  RUNTIME_OPERATIONS,
} from './dataplane.metrics.js';

const pod = (name: string) => ({
  namespace: 'haptic',
  name,
  address: '127.0.0.1',
  dataplanePort: 5555,
});

describe('DataplaneListener metrics', () => {
  it('removes every series of a pod that vanished from discovery, and keeps the others', async () => {
    const bus = await createTestBus();
    const metrics = {
      deployments: new Counter({ ...DEPLOYMENTS_TOTAL, registers: [] }),
      duration: new Histogram({ ...DEPLOYMENT_DURATION, registers: [] }),
      reloads: new Counter({ ...RELOADS_TOTAL, registers: [] }),
      lastSuccess: new Gauge({ ...LAST_SUCCESS, registers: [] }),
      runtimeOps: new Counter({ ...RUNTIME_OPERATIONS, registers: [] }),
    };
    const listener = new DataplaneListener(
      bus,
      { identity: 'test' },
      metrics.deployments,
      metrics.duration,
      metrics.reloads,
      metrics.lastSuccess,
      metrics.runtimeOps,
      new SchedulerRegistry(),
    );
    listener.startLeading();
    bus.setState('haproxy.pods', [pod('a'), pod('b')]);
    await bus.idle();
    for (const p of ['haptic/a', 'haptic/b']) {
      metrics.deployments.inc({ pod: p, result: 'applied' });
      metrics.duration.observe({ pod: p }, 0.1);
      metrics.reloads.inc({ pod: p, reason: 'structural' });
      metrics.lastSuccess.set({ pod: p }, 1);
      metrics.runtimeOps.inc({ pod: p, kind: 'server.set' });
    }
    bus.setState('haproxy.pods', [pod('a')]);
    await bus.idle();
    for (const m of Object.values(metrics)) {
      const { name, values } = await m.get();
      const pods = [...new Set(values.map((v) => v.labels['pod']))];
      expect({ name, pods }).toEqual({ name, pods: ['haptic/a'] });
    }
    await listener.stopLeading(AbortSignal.timeout(1_000));
  });
});

describe('DataplaneListener on a config change', () => {
  const dataplane = {
    scheme: 'http' as const,
    minDeploymentInterval: '0s',
    maxParallel: 4,
    deploymentTimeout: '5s',
    driftPreventionInterval: '60s',
  };
  const config = () => ({ spec: { dataplane } }) as never;
  const render = (hash: string) => ({
    hash,
    configGeneration: 1,
    outputs: {
      haproxyConfig: `# ${hash}\n`,
      maps: {},
      files: {},
      sslCertificates: {},
      crtLists: {},
    },
  });

  it('lets the replaced fleet finish its deployment before the new one deploys: the newest render is the last one applied', async () => {
    const bus = await createTestBus();
    const started: string[] = [];
    const finished: string[] = [];
    const gates = new Map<string, () => void>();
    let inFlight = 0;
    let maxInFlight = 0;
    class Seamed extends DataplaneListener {
      protected override createFleet(options: FleetOptions): Fleet {
        return new Fleet({
          ...options,
          read: () => Promise.resolve({ config: 'global\n', maps: {}, certs: {}, general: {} }),
          deploy: async (_client, r) => {
            started.push(r.hash);
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await new Promise<void>((resolve) => gates.set(r.hash, resolve));
            inFlight--;
            finished.push(r.hash);
            return { reloaded: true, reloadId: '1', operations: [], reloadReasons: [], version: 2 };
          },
        });
      }
    }
    const listener = new Seamed(
      bus,
      { identity: 'test' },
      new Counter({ ...DEPLOYMENTS_TOTAL, registers: [] }),
      new Histogram({ ...DEPLOYMENT_DURATION, registers: [] }),
      new Counter({ ...RELOADS_TOTAL, registers: [] }),
      new Gauge({ ...LAST_SUCCESS, registers: [] }),
      new Counter({ ...RUNTIME_OPERATIONS, registers: [] }),
      new SchedulerRegistry(),
    );
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    };
    bus.setState('dataplane.credentials', { username: 'u', password: 'p' });
    bus.setState('haproxy.pods', [pod('a')]);
    bus.setState('render.validated', render('old'));
    bus.setState('config.current', config());
    listener.startLeading();
    await until(() => started.includes('old'));
    // the config is replaced (a new object) while the deployment of "old" is in flight, and a
    // newer render arrives
    bus.setState('config.current', config());
    await bus.idle();
    bus.setState('render.validated', render('new'));
    await bus.idle();
    await new Promise((r) => setTimeout(r, 50));
    expect(started).toEqual(['old']);
    gates.get('old')?.();
    await until(() => started.includes('new'));
    gates.get('new')?.();
    await until(() => finished.includes('new'));
    expect(maxInFlight).toBe(1);
    expect(finished.at(-1)).toBe('new');
    await listener.stopLeading(AbortSignal.timeout(1_000));
  });
});
