import { readFileSync } from 'node:fs';
import { Test, type TestingModule } from '@nestjs/testing';
import { BusModule, EVENT_BUS } from '#bus';
import { parseTemplateConfigText } from '#core';
import type { HapticBus } from '#events';
import { published } from '#testbed/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { RenderListener } from './render.listener.js';
import { RenderModule } from './render.module.js';

const config = (() => {
  const parsed = parseTemplateConfigText(readFileSync('test/fixtures/config/minimal.yaml', 'utf8'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
})();

/** The config's indexBy per watched resource: the snapshot holds every one, as in production. */
const indexBy = (): Record<string, readonly string[]> =>
  Object.fromEntries(Object.entries(config.spec.watchedResources).map(([n, w]) => [n, w.indexBy]));

const ingress = (ns: string, name: string, host: string): object => ({
  kind: 'Ingress',
  metadata: { namespace: ns, name },
  spec: { rules: [{ host }] },
});

describe('RenderListener', () => {
  let moduleRef: TestingModule | undefined;
  afterEach(async () => {
    await moduleRef?.close();
  });

  async function start(
    objects: object[],
    awaitReadBack = false,
    pending?: () => readonly string[],
  ): Promise<HapticBus> {
    const snapshot = snapshotOf(indexBy(), { ingresses: objects });
    moduleRef = await Test.createTestingModule({
      imports: [
        BusModule,
        RenderModule.forRoot({
          snapshotSource: {
            snapshot: () => Promise.resolve(snapshot),
            ...(pending ? { pending } : {}),
          },
          awaitReadBack,
        }),
      ],
    }).compile();
    await moduleRef.init();
    return moduleRef.get<HapticBus>(EVENT_BUS);
  }
  /** What the LeaderModule does when this replica gains leadership. */
  const lead = () => moduleRef!.get(RenderListener).startLeading();

  it('renders on each trigger while leading (not on a config alone), and publishes the outcome', async () => {
    const bus = await start([ingress('a', 'web', 'web.example.com')]);
    await lead();
    bus.setState('config.current', config);
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(0); // the reconcile loop triggers
    await bus.publish('reconcile.triggered', { reason: 'index synced', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(1);
    const rendered = bus.getState('render.rendered');
    expect(rendered?.outputs.maps['hosts.map']).toContain('web.example.com a_web');
    expect(rendered?.hash).toBe(published(bus, 'render.completed')[0]!.payload.hash);
    await bus.publish('reconcile.triggered', { reason: 'test', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(2);
  });

  it('renders nothing while a watched resource waits for its first list (a config replaced its store)', async () => {
    let waiting: readonly string[] = ['ingresses'];
    const bus = await start([ingress('a', 'web', 'web.example.com')], false, () => waiting);
    await lead();
    bus.setState('config.current', config);
    await bus.publish('reconcile.triggered', { reason: 'services a/x modified', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(0);
    expect(published(bus, 'render.failed')).toHaveLength(0);
    expect(bus.getState('render.rendered')).toBeUndefined();
    waiting = [];
    await bus.publish('reconcile.triggered', { reason: 'index synced', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(1);
    expect(bus.getState('render.rendered')?.outputs.maps['hosts.map']).toContain('web.example.com');
  });

  it('does not render on a standby replica (leader-only work never started)', async () => {
    const bus = await start([]);
    bus.setState('config.current', config);
    await bus.publish('reconcile.triggered', { reason: 'test', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(0);
    expect(bus.getState('render.rendered')).toBeUndefined();
  });

  it('publishes one object.quarantined per object left out, then the render', async () => {
    const bus = await start([ingress('a', 'ok', 'ok.example.com'), ingress('b', 'bad', 'x\ny')]);
    await lead();
    bus.setState('config.current', config);
    await bus.publish('reconcile.triggered', { reason: 'test', coalesced: 0 });
    await bus.idle();
    const q = published(bus, 'object.quarantined');
    expect(q.map((e) => e.payload.object)).toEqual([{ namespace: 'b', name: 'bad' }]);
    expect(q[0]!.payload.reason).toMatch(/map:hosts.map:1:\d+: output refused/);
    expect(published(bus, 'render.completed')).toHaveLength(1);
  });

  it('renders at once from the current index when leadership is gained after sync, and stops with it', async () => {
    const bus = await start([ingress('a', 'web', 'web.example.com')]);
    bus.setState('config.current', config);
    await bus.publish('index.synced', { watched: ['ingresses'] });
    await bus.publish('reconcile.triggered', { reason: 'before leading', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(0);
    await lead();
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(1); // no replay: one render of now
    await moduleRef!.get(RenderListener).stopLeading();
    await bus.publish('reconcile.triggered', { reason: 'after leading', coalesced: 0 });
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(1);
  });

  it('reports a config whose templates do not compile', async () => {
    const bus = await start([]);
    await lead();
    const spec = { ...config.spec, haproxyConfig: { template: '{{ x | nope }}' } };
    bus.setState('config.current', { ...config, spec });
    await bus.idle();
    expect(published(bus, 'render.failed')[0]!.payload.reason).toMatch(/undefined filter: nope/);
  });

  it('with awaitReadBack, renders first once the pods have been read back', async () => {
    const bus = await start([ingress('a', 'web', 'web.example.com')], true);
    bus.setState('haproxy.pods', [
      { namespace: 'h', name: 'p', address: '127.0.0.1', dataplanePort: 5555 },
    ]);
    bus.setState('config.current', config);
    await lead();
    const triggered = bus.publish('reconcile.triggered', { reason: 'test', coalesced: 0 });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(published(bus, 'render.completed')).toHaveLength(0);
    bus.setState('dataplane.readback', {
      haproxyConfig: 'global\n',
      maps: {},
      pods: 1,
      agreeing: 1,
    });
    await triggered;
    await bus.idle();
    expect(published(bus, 'render.completed')).toHaveLength(1);
  });
});
