import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import {
  startController,
  type RunningController,
} from '../../../apps/controller/src/run/controller-app.js';
import { resolveRunOptions } from '../../../apps/controller/src/run/run-options.js';

const options = resolveRunOptions(
  { address: '127.0.0.1', healthPort: '0', metricsPort: '0', logLevel: 'error' },
  {},
);

describe('controller HTTP surface (one Nest context, two listeners)', () => {
  let c: RunningController;
  let bus: HapticBus;
  const get = (port: number, path: string) => fetch(`http://127.0.0.1:${port}${path}`);

  beforeAll(async () => {
    c = await startController(options);
    bus = c.app.get<HapticBus>(EVENT_BUS);
  });
  afterAll(async () => c?.stop());

  it('is live at once and ready only after the index synced', async () => {
    expect((await get(c.healthPort, '/healthz')).status).toBe(200);
    const notReady = await get(c.healthPort, '/readyz');
    expect(notReady.status).toBe(503);
    expect(JSON.stringify(await notReady.json())).toMatch(/waiting for the first list/);
    await bus.publish('index.synced', { watched: ['ingresses'] });
    await bus.idle();
    expect((await get(c.healthPort, '/readyz')).status).toBe(200);
  });

  it('serves /debug views with credentials redacted', async () => {
    expect(await (await get(c.healthPort, '/debug')).json()).toMatchObject({
      endpoints: expect.arrayContaining(['/debug/events']),
    });
    bus.setState('dataplane.credentials', { username: 'admin', password: 's3cret-value' });
    const events = await (await get(c.healthPort, '/debug/events')).text();
    expect(events).toContain('index.synced');
    expect(events).not.toContain('s3cret-value');
    expect((await get(c.healthPort, '/debug/config')).status).toBe(404);
  });

  it('serves Prometheus metrics on its own listener, and only there', async () => {
    const body = await (await get(c.metricsPort, '/metrics')).text();
    expect(body).toMatch(/^# HELP haptic_bus_queue_depth/m);
    expect(body).toMatch(/haptic_bus_queue_depth\{topic="index.synced",kind="fact"\} 0/);
    expect(body).toMatch(/nodejs_heap_size_used_bytes/);
    expect((await get(c.metricsPort, '/healthz')).status).toBe(404);
    expect((await get(c.healthPort, '/metrics')).status).toBe(404);
  });

  it('closes every listener on stop', async () => {
    const ports = [c.healthPort, c.metricsPort];
    await c.stop();
    for (const port of ports) {
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect(port, '127.0.0.1');
        s.once('connect', () => (s.destroy(), resolve(false)));
        s.once('error', () => resolve(true));
      });
      expect(refused).toBe(true);
    }
  });
});
