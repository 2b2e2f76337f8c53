import { SchedulerRegistry } from '@nestjs/schedule';
import { Counter, Gauge, Histogram } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createTestBus } from '#testing';
import { DataplaneListener } from './dataplane.listener.js';
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
