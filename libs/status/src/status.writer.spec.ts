import { SchedulerRegistry } from '@nestjs/schedule';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import type { HapticBus, IngressStatusSource } from '#events';
import { EventRecorder } from './event-recorder.js';
import { GatewayStatusWriter } from './gateway-status.writer.js';
import type { GatewayStatusApi } from './gateway-status-api.js';
import type { StatusRecorderListener } from './status.events.js';
import { StatusTracker } from './status.tracker.js';
import type { GatewayStatusSource, StatusModuleOptions } from './status.tokens.js';
import { StatusWriter } from './status.writer.js';
import type { StatusApi, StoredConfig } from './status-api.js';

const OPTIONS: StatusModuleOptions = {
  config: { namespace: 'haptic', name: 'haptic' },
  identity: 'me',
};
const counter = (name: string) =>
  new Counter({
    name,
    help: name,
    labelNames: ['kind', 'result', 'reason'],
    registers: [new Registry()],
  });
const bus = { getState: () => undefined } as unknown as HapticBus;

/** A promise the test settles by hand (an API call that has not answered yet). */
function pending<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve: (v: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Whether `p` settles within `ms` (real time; generous: the passing case settles at once). */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)));
  const done = await Promise.race([p.then(() => true as const), late]);
  clearTimeout(timer);
  return done;
}

const flush = () => new Promise<void>((r) => setImmediate(r));

function statusWriter(
  api: StatusApi,
  options: StatusModuleOptions = OPTIONS,
  scheduler = new SchedulerRegistry(),
): StatusWriter {
  const ingresses: IngressStatusSource = {
    ingresses: () => Promise.resolve({ served: [], all: [] }),
    object: () => Promise.resolve(undefined),
  };
  const events = { start: () => [] } as unknown as StatusRecorderListener;
  const recorder = new EventRecorder(api, OPTIONS, counter('haptic_test_events'));
  return new StatusWriter(
    bus,
    api,
    options,
    ingresses,
    new StatusTracker(bus),
    events,
    recorder,
    counter('haptic_test_writes'),
    scheduler,
  );
}

/** A StatusApi whose config read answers only when the test says so; writes are recorded. */
function slowApi() {
  const read = pending<StoredConfig | undefined>();
  const writes: string[] = [];
  const api: StatusApi = {
    readConfig: () => read.promise,
    patchConfigStatus: (_ns, name) => (writes.push(`config ${name}`), Promise.resolve()),
    patchIngressStatus: (_ns, name) => (writes.push(`ingress ${name}`), Promise.resolve()),
    readService: () => Promise.resolve(undefined),
    listNodes: () => Promise.resolve([]),
    writeEvent: (w) => (writes.push(`event ${w.op}`), Promise.resolve()),
  };
  return { api, read, writes };
}

describe('StatusWriter leadership', () => {
  it('resyncs on an interval of the SchedulerRegistry while leading, and drops it on stop', async () => {
    let reads = 0;
    const api: StatusApi = {
      ...slowApi().api,
      readConfig: () => (reads++, Promise.resolve(undefined)),
    };
    const scheduler = new SchedulerRegistry();
    const writer = statusWriter(api, { ...OPTIONS, resyncMs: 10 }, scheduler);
    writer.startLeading();
    expect(scheduler.getIntervals()).toEqual(['status-resync']);
    // the first pass and at least two resyncs, polled for (not slept on: a loaded machine is slow)
    await vi.waitFor(() => expect(reads).toBeGreaterThan(2), { timeout: 10_000, interval: 10 });
    await writer.stopLeading(new AbortController().signal);
    expect(scheduler.getIntervals()).toEqual([]);
  });

  it('stops at once when its deadline has already passed, and writes nothing after', async () => {
    // leadership ended by a failed renewal: the deadline is aborted before stopLeading is called,
    // and a status pass is waiting on the API (which may never answer)
    const { api, read, writes } = slowApi();
    const writer = statusWriter(api);
    writer.startLeading();
    await flush();
    const stopped = writer.stopLeading(AbortSignal.abort(new Error('renewal failed')));
    expect(await settlesWithin(stopped, 2_000)).toBe(true);
    read.resolve({ uid: 'u', conditions: [] }); // the API answers late
    await writer.settled();
    expect(writes).toEqual([]); // the abandoned pass wrote nothing
  });

  it('a graceful stop lets the pass in flight finish', async () => {
    const { api, read, writes } = slowApi();
    const writer = statusWriter(api);
    writer.startLeading();
    await flush();
    const deadline = new AbortController();
    const stopped = writer.stopLeading(deadline.signal);
    expect(await settlesWithin(stopped, 50)).toBe(false); // waits for the pass
    read.resolve({ uid: 'u', conditions: [] });
    expect(await settlesWithin(stopped, 2_000)).toBe(true);
    expect(writes).toEqual(['config haptic']);
  });
});

const gatewayClass = {
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'GatewayClass',
  metadata: { name: 'haptic', generation: 1 },
  spec: { controllerName: 'haproxy-haptic.org/gateway-controller' },
};

function gatewayWriter() {
  const snapshot = pending<Awaited<ReturnType<GatewayStatusSource['snapshot']>>>();
  const writes: string[] = [];
  const api: GatewayStatusApi = {
    patchStatus: (kind, _ns, name) => (writes.push(`${kind} ${name}`), Promise.resolve()),
    writeService: (w) => (writes.push(`service ${w.op}`), Promise.resolve()),
  };
  const writer = new GatewayStatusWriter(
    api,
    { snapshot: () => snapshot.promise },
    OPTIONS,
    new StatusTracker(bus),
    counter('haptic_test_gateway_writes'),
    new SchedulerRegistry(),
  );
  const answer = () =>
    snapshot.resolve({
      list: (w) => (w === 'gatewayclasses' ? [gatewayClass] : []),
      watched: ['gatewayclasses'],
      extra: {},
    });
  return { writer, writes, answer };
}

describe('GatewayStatusWriter leadership', () => {
  it('stops at once when its deadline has already passed, and writes nothing after', async () => {
    const { writer, writes, answer } = gatewayWriter();
    writer.startLeading();
    await flush();
    const stopped = writer.stopLeading(AbortSignal.abort(new Error('renewal failed')));
    expect(await settlesWithin(stopped, 2_000)).toBe(true);
    answer();
    await writer.settled();
    expect(writes).toEqual([]);
  });

  it('while leading, the same pass writes the class (the fixture is one that gets a write)', async () => {
    const { writer, writes, answer } = gatewayWriter();
    writer.startLeading();
    await flush();
    answer();
    await writer.settled();
    expect(writes).toEqual(['GatewayClass haptic']);
    await writer.stopLeading(new AbortController().signal);
  });
});

describe('EventRecorder', () => {
  it('drops the Events still queued when leadership is abandoned', async () => {
    const first = pending<void>();
    const written: string[] = [];
    const api = {
      writeEvent: (w: { record: { reason: string } }) => {
        written.push(w.record.reason);
        return written.length === 1 ? first.promise : Promise.resolve();
      },
    } as unknown as StatusApi;
    const recorder = new EventRecorder(api, OPTIONS, counter('haptic_test_events_2'));
    const involved = { apiVersion: 'v1', kind: 'Service', namespace: 'apps', name: 'web' };
    const record = (reason: string) =>
      void recorder.record({ involved, type: 'Warning', reason, message: reason });
    record('First');
    record('Second');
    await flush();
    expect(written).toEqual(['First']); // in flight
    recorder.abandon();
    first.resolve();
    await recorder.idle();
    expect(written).toEqual(['First']); // the queued one was dropped
    record('Third'); // a later term writes again
    await recorder.idle();
    expect(written).toEqual(['First', 'Third']);
  });
});
