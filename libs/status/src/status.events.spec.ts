import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { EventBus } from '#bus';
import type { HapticBus, IngressStatusSource, RenderNoticeFact } from '#events';
import { EventRecorder } from './event-recorder.js';
import type { EventWrite } from './lib/event-aggregator.js';
import { StatusRecorderListener } from './status.events.js';
import type { StatusModuleOptions } from './status.tokens.js';
import type { StatusApi } from './status-api.js';

const OPTIONS: StatusModuleOptions = {
  config: { namespace: 'haptic', name: 'haptic' },
  identity: 'me',
};
const CONFIG = {
  spec: {
    watchedResources: {
      ingresses: { apiVersion: 'networking.k8s.io/v1', resources: 'ingresses' },
    },
  },
};
const notice = (name: string): RenderNoticeFact => ({
  watched: 'ingresses',
  object: { namespace: 'apps', name },
  reason: 'AnnotationNotHonoured',
  message: `Ingress apps/${name}: annotation nginx.ingress.kubernetes.io/x is unknown`,
});

const show = (w: EventWrite): string =>
  w.op === 'create'
    ? `create ${w.record.involved.name} ${w.record.type} ${w.record.reason}`
    : `update ${w.name} ${w.count}`;

async function setup() {
  const bus = new EventBus() as unknown as HapticBus;
  await bus.start();
  bus.setState('config.current', CONFIG as never);
  const writes: EventWrite[] = [];
  const api = {
    writeEvent: (w: EventWrite) => (writes.push(w), Promise.resolve()),
  } as unknown as StatusApi;
  const objects: IngressStatusSource = {
    ingresses: () => Promise.resolve({ served: [], all: [] }),
    object: (_w, ns, name) =>
      Promise.resolve({ kind: 'Ingress', metadata: { namespace: ns, name, uid: `uid-${name}` } }),
  };
  const counter = new Counter({
    name: 'haptic_test_notice_events',
    help: 'test',
    labelNames: ['reason', 'result'],
    registers: [new Registry()],
  });
  const recorder = new EventRecorder(api, OPTIONS, counter);
  const listener = new StatusRecorderListener(bus, api, OPTIONS, objects, recorder);
  return { bus, writes, recorder, listener };
}

describe('StatusRecorderListener render notices', () => {
  it('writes a Warning Event on the object once per notice, not on every render', async () => {
    const { bus, writes, recorder, listener } = await setup();
    bus.setState('render.notices', [notice('a')]);
    const offs = listener.start(); // a new leader: the current notices get their Events
    const settle = async () => {
      await new Promise((r) => setImmediate(r));
      await recorder.idle();
    };
    await settle();
    bus.setState('render.notices', [notice('a')]);
    bus.setState('render.notices', [notice('a'), notice('b')]);
    await settle();
    expect(writes.map(show)).toEqual([
      'create a Warning AnnotationNotHonoured',
      'create b Warning AnnotationNotHonoured',
    ]);
    const first = writes[0]?.op === 'create' ? writes[0] : undefined;
    expect(first?.record.involved).toMatchObject({ kind: 'Ingress', uid: 'uid-a' });
    expect(first?.record.message).toContain('nginx.ingress.kubernetes.io/x');
    // gone, then back: written again (the aggregator raises the Event's count)
    bus.setState('render.notices', [notice('b')]);
    await settle(); // (a state's superseded values are coalesced)
    bus.setState('render.notices', [notice('a'), notice('b')]);
    await settle();
    expect(writes.map(show)).toEqual([
      'create a Warning AnnotationNotHonoured',
      'create b Warning AnnotationNotHonoured',
      `update ${first?.name} 2`,
    ]);
    for (const off of offs) off();
  });
});
