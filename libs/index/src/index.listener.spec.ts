import type { HapticBus } from '#events';
import { createTestBus, published } from '#testbed/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IndexListener } from './index.listener.js';
import { ResourceIndex } from './lib/resource-index.js';

const obj = (name: string) => ({ metadata: { namespace: 'a', name } });
const tick = () => new Promise((r) => setImmediate(r));

describe('IndexListener', () => {
  let bus: HapticBus;
  let index: ResourceIndex;
  let listener: IndexListener;
  beforeEach(async () => {
    bus = await createTestBus();
    index = new ResourceIndex();
    index.configure({
      ings: { indexBy: ['metadata.name'], store: 'full' },
      secrets: { indexBy: ['metadata.name'], store: 'full' },
    });
    listener = new IndexListener(index, bus);
    listener.onModuleInit();
  });
  afterEach(() => listener.onApplicationShutdown());

  it('coalesces changes per resource and names the object when only one changed', async () => {
    index.upsert('ings', obj('x'));
    index.upsert('ings', obj('y'));
    index.upsert('secrets', obj('s'));
    await tick();
    index.remove('ings', obj('x'));
    await tick();
    await bus.idle();
    const changed = published(bus, 'resource.changed');
    expect(changed.map(({ payload: { receivedAt: _, ...p } }) => p)).toEqual([
      { watched: 'ings', change: 'modified' },
      { watched: 'secrets', change: 'added', object: { namespace: 'a', name: 's' } },
      { watched: 'ings', change: 'deleted', object: { namespace: 'a', name: 'x' } },
    ]);
    expect(listener.coalesced).toBe(1);
    // when the index got each (first coalesced) change: the `index` stage starts there
    for (const e of changed) expect(e.payload.receivedAt).toBeLessThanOrEqual(e.at);
    expect(changed.every((e) => typeof e.payload.receivedAt === 'number')).toBe(true);
  });

  it('gives each change its own correlation id, even when the watch runs in an event context', async () => {
    // The informers start in a config.current handler, so their callbacks run in that event's
    // async context: the changes must not inherit its correlation id (one id per change).
    bus.subscribe(
      'reconcile.triggered',
      () =>
        new Promise<void>((resolve) => {
          index.upsert('ings', obj('x'));
          setTimeout(() => {
            index.upsert('ings', obj('y'));
            setTimeout(() => {
              index.upsert('ings', obj('z'));
              resolve();
            }, 5);
          }, 5);
        }),
      { name: 'watch' },
    );
    await bus.publish('reconcile.triggered', { reason: 'config', coalesced: 0 });
    // changes that arrive while one is pending are coalesced by design (a loaded machine may
    // put two of the three in one batch): every change is either published or counted as such
    await expect
      .poll(() => published(bus, 'resource.changed').length + listener.coalesced, {
        timeout: 4_000,
      })
      .toBe(3);
    await bus.idle();
    const trigger = published(bus, 'reconcile.triggered')[0]?.correlationId;
    const ids = published(bus, 'resource.changed').map((e) => e.correlationId);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(trigger);
  });

  it('publishes index.synced once every resource is listed, even one that could not be', async () => {
    index.reset('ings', undefined, [obj('x')]);
    index.listed('ings');
    await tick();
    expect(published(bus, 'index.synced')).toHaveLength(0);
    index.listed('secrets'); // e.g. forbidden: listed without any object
    await tick();
    await bus.idle();
    expect(published(bus, 'index.synced').map((e) => e.payload)).toEqual([
      { watched: ['ings', 'secrets'] },
    ]);
  });

  it('reports synced again after a config replaced a store, once that store has been listed', async () => {
    index.listed('ings');
    index.listed('secrets');
    await tick();
    await bus.idle();
    expect(published(bus, 'index.synced')).toHaveLength(1);
    // a new indexBy for ings: its store starts empty and unlisted; secrets are kept
    index.configure({
      ings: { indexBy: ['metadata.namespace', 'metadata.name'], store: 'full' },
      secrets: { indexBy: ['metadata.name'], store: 'full' },
    });
    await tick();
    await bus.idle();
    expect(index.pending()).toEqual(['ings']);
    expect(published(bus, 'index.synced')).toHaveLength(1);
    index.reset('ings', undefined, [obj('x')]);
    index.listed('ings');
    await tick();
    await bus.idle();
    expect(published(bus, 'index.synced')).toHaveLength(2);
  });
});
