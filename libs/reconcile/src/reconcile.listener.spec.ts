import { describe, expect, it } from 'vitest';
import { parseTemplateConfigText } from '#core';
import { createTestBus, FakeClock, published } from '#testbed/testing';
import { Counter } from 'prom-client';
import { ReconcileListener } from './reconcile.listener.js';
import { RECONCILE_TOTAL } from './reconcile.metrics.js';

const config = () => {
  const r = parseTemplateConfigText(`
credentialsSecretRef: {name: c}
podSelector: {matchLabels: {app: haproxy}}
controller: {reconcile: {debounce: 100ms, maxDelay: 1s}}
watchedResources: {ingresses: {apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.namespace]}}
haproxyConfig: {template: "global\\n"}
`);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
};

async function setup() {
  const bus = await createTestBus();
  const clock = new FakeClock(0);
  const listener = new ReconcileListener(
    bus,
    clock,
    new Counter({ ...RECONCILE_TOTAL, registers: [] }),
  );
  listener.onModuleInit();
  const settle = async (ms = 0) => {
    await bus.idle();
    await clock.advance(ms);
    await bus.idle();
  };
  return { bus, clock, listener, settle, triggered: () => published(bus, 'reconcile.triggered') };
}

describe('ReconcileListener', () => {
  it('triggers nothing before the index synced, then renders at once', async () => {
    const { bus, settle, triggered, listener } = await setup();
    bus.setState('config.current', config());
    await bus.publish('resource.changed', {
      watched: 'ingresses',
      change: 'added',
      object: { namespace: 'a', name: 'x' },
    });
    await settle(5000);
    expect(triggered()).toHaveLength(0);
    await bus.publish('index.synced', { watched: ['ingresses'] });
    await settle();
    expect(triggered().map((e) => e.payload.reason)).toEqual(['index synced']);
    await listener.onModuleDestroy();
  });

  it('coalesces a burst of changes into one trigger after the debounce window', async () => {
    const { bus, settle, triggered, listener } = await setup();
    bus.setState('config.current', config());
    await bus.publish('index.synced', { watched: ['ingresses'] });
    await settle(1000);
    for (let i = 0; i < 20; i++) {
      await bus.publish('resource.changed', {
        watched: 'ingresses',
        change: 'modified',
        object: { namespace: 'a', name: `i${i}` },
      });
      await settle(5);
    }
    await settle(1000);
    const t = triggered();
    expect(t).toHaveLength(3); // synced; the leading edge of the burst; the rest coalesced
    expect(t[2]!.payload.coalesced).toBe(18);
    expect(t[2]!.payload.reason).toMatch(/and 16 more$/);
    await listener.onModuleDestroy();
  });

  it('carries the changes it covers, and a run lasts until its render completes', async () => {
    const { bus, settle, triggered, listener } = await setup();
    bus.setState('config.current', config());
    await bus.publish('index.synced', { watched: ['ingresses'] });
    await settle(1000);
    const change = (name: string, correlationId: string) =>
      bus.publish(
        'resource.changed',
        { watched: 'ingresses', change: 'modified', object: { namespace: 'a', name } },
        { correlationId },
      );
    await change('x', 'change-x');
    await settle(5);
    const first = triggered()[1]!;
    expect(first.correlationId).toBe('change-x');
    expect(first.payload.changes).toEqual(['change-x']);
    await change('y', 'change-y'); // its render is still under way: coalesced
    await settle(5);
    expect(triggered()).toHaveLength(2);
    await bus.publish('render.completed', { hash: 'h', durationMs: 10 }, { correlationId: 'x' });
    await settle(5);
    expect(triggered()).toHaveLength(2); // another run's render does not end this one
    await bus.publish(
      'render.completed',
      { hash: 'h', durationMs: 10 },
      { correlationId: 'change-x' },
    );
    await settle(0);
    await settle(100); // arrived during a run: the configured debounce applies
    const second = triggered()[2]!;
    expect(second.correlationId).toBe('change-y');
    expect(second.payload.changes).toEqual(['change-y']);
    await listener.onModuleDestroy();
  });

  it('triggers when a new config version arrives', async () => {
    const { bus, settle, triggered, listener } = await setup();
    bus.setState('config.current', config());
    await bus.publish('index.synced', { watched: ['ingresses'] });
    await settle(1000);
    bus.setState('config.current', config());
    await settle(1000);
    expect(triggered()).toHaveLength(2);
    await listener.onModuleDestroy();
  });
});
