import { parseTemplateConfigText } from '#core';
import { createTestBus, published } from '#testbed/testing';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { emptyOutputs } from './lib/outputs.js';
import { ValidationListener } from './validation.listener.js';
import { VALIDATION_DURATION } from './validation.metrics.js';
import { ValidationService } from './validation.service.js';

const parsed = parseTemplateConfigText(`
credentialsSecretRef: { name: c }
podSelector: { matchLabels: { app: haproxy } }
watchedResources:
  ingresses: { apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.name] }
haproxyConfig: { template: "global" }`);
if (!parsed.ok) throw new Error('config');
const config = parsed.config;

const render = (hash: string, cfg: string) => ({
  hash,
  outputs: emptyOutputs(cfg),
  configGeneration: 1,
});

const duration = (registers: Registry[]) =>
  new Histogram({ ...VALIDATION_DURATION, labelNames: ['result'], registers });

describe('ValidationListener', () => {
  it('validates render.rendered and sets render.validated only for valid renders', async () => {
    const bus = await createTestBus();
    const registry = new Registry();
    // /bin/true stands in for haproxy -c that accepts; refusals never reach it.
    const listener = new ValidationListener(
      bus,
      new ValidationService({ haproxyBin: '/bin/true' }),
      duration([registry]),
    );
    listener.startLeading(); // what the LeaderModule does on gaining leadership
    bus.setState('config.current', config);
    bus.setState('render.rendered', render('good', 'global\n  daemon\n'));
    await bus.idle();
    expect(bus.getState('render.validated')?.hash).toBe('good');
    bus.setState('render.rendered', render('bad', 'global\n  lua-load x.lua\n'));
    await bus.idle();
    expect(bus.getState('render.validated')?.hash).toBe('good');
    expect(published(bus, 'validation.completed').map((e) => e.payload.hash)).toEqual(['good']);
    expect(published(bus, 'validation.failed').map((e) => e.payload)).toEqual([
      {
        hash: 'bad',
        reason:
          "haproxy.cfg:2: 'lua-load x.lua' is refused: it loads and runs Lua code (allow with spec.validation.allowedDirectives: [lua-load])",
      },
    ]);
    expect(await registry.getSingleMetricAsString('haptic_validation_duration_seconds')).toMatch(
      /haptic_validation_duration_seconds_count\{result="invalid"\} 1/,
    );
    listener.onModuleDestroy();
    bus.close();
  });

  it('validates only while leading, and not a render left over from an earlier term', async () => {
    const bus = await createTestBus();
    const listener = new ValidationListener(
      bus,
      new ValidationService({ haproxyBin: '/bin/true' }),
      duration([new Registry()]),
    );
    bus.setState('config.current', config);
    bus.setState('render.rendered', render('standby', 'global\n'));
    await bus.idle();
    expect(bus.getState('render.validated')).toBeUndefined(); // never started: a standby
    listener.startLeading();
    await bus.idle();
    expect(bus.getState('render.validated')?.hash).toBe('standby');
    await listener.stopLeading();
    bus.setState('render.rendered', render('old-term', 'global\n'));
    await bus.idle();
    expect(bus.getState('render.validated')?.hash).toBe('standby');
    await listener.stopLeading();
    listener.startLeading(); // leadership again: old-term is what this replica left behind
    await bus.idle();
    expect(bus.getState('render.validated')?.hash).toBe('standby');
    bus.setState('render.rendered', render('new-term', 'global\n'));
    await bus.idle();
    expect(bus.getState('render.validated')?.hash).toBe('new-term');
    listener.onModuleDestroy();
    bus.close();
  });

  it('fails a render that arrives before any configuration', async () => {
    const bus = await createTestBus();
    const listener = new ValidationListener(
      bus,
      new ValidationService({ haproxyBin: '/bin/true' }),
      duration([]),
    );
    listener.startLeading(); // what the LeaderModule does on gaining leadership
    bus.setState('render.rendered', render('early', 'global\n'));
    await bus.idle();
    expect(published(bus, 'validation.failed').map((e) => e.payload.reason)).toEqual([
      'no configuration in force',
    ]);
    listener.onModuleDestroy();
    bus.close();
  });
});

describe('ValidationListener: a runtime-only render', () => {
  const cfg = (server: string) =>
    `global\n  daemon\ndefaults\n  mode http\nfrontend fe\n  bind :8080\n  default_backend be\n` +
    `backend be\n  balance roundrobin\n  server s1 ${server} check\n`;
  const withMap = (hash: string, server: string, map: string) => ({
    hash,
    outputs: { ...emptyOutputs(cfg(server)), maps: { 'hosts.map': map } },
    configGeneration: 1,
  });

  /** A ValidationService whose whole checks end when the test says. */
  function heldChecks() {
    const held: { hash: string; end: (valid: boolean) => void }[] = [];
    const service = {
      validateStructure: () =>
        Promise.resolve({ valid: true, problems: [], haproxy: { ran: false } }),
      validate: (_spec: unknown, outputs: { haproxyConfig: string }) =>
        new Promise((resolve) =>
          held.push({
            hash: outputs.haproxyConfig,
            end: (valid) =>
              resolve(
                valid
                  ? { valid: true, problems: [], haproxy: { ran: true } }
                  : {
                      valid: false,
                      problems: [{ stage: 'haproxy', output: 'haproxy.cfg', reason: 'refused' }],
                      haproxy: { ran: true },
                    },
              ),
          }),
        ),
    } as unknown as ValidationService;
    return { held, service };
  }

  /** A pod reports the render `hash` deployed (its runtime operations applied). */
  const reportDeployed = (bus: Awaited<ReturnType<typeof createTestBus>>, hash: string) =>
    bus.publish('deploy.completed', {
      pod: 'ns/haproxy-0',
      hash,
      reloaded: false,
      runtimeOperations: 1,
      durationMs: 1,
    });

  /** A leading listener given its first render `a` (10.0.0.1, one map line): validated, not yet checked whole. */
  async function leadingWithA() {
    const bus = await createTestBus();
    const { held, service } = heldChecks();
    const listener = new ValidationListener(bus, service, duration([new Registry()]));
    listener.startLeading();
    bus.setState('config.current', config);
    bus.setState('render.rendered', withMap('a', '10.0.0.1:80', 'a.example be\n'));
    await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe('a'));
    return { bus, held, listener };
  }

  /** A leading listener whose first render `a` passed its whole check. */
  async function startedWithA() {
    const started = await leadingWithA();
    // a changed configuration text: the pods check it; its own check starts once one reports it
    await reportDeployed(started.bus, 'a');
    await vi.waitFor(() => expect(started.held).toHaveLength(1));
    started.held[0]!.end(true);
    return started;
  }

  it('is set at once; its whole check runs behind it and a failure rolls back', async () => {
    const { bus, held, listener } = await leadingWithA();
    // a changed configuration text: the pods check it; its own check starts once one reports it
    await reportDeployed(bus, 'a');
    await vi.waitFor(() => expect(held).toHaveLength(1));
    // the first render (structural): set before its whole check, which runs beside its deployment
    expect(bus.getState('render.validated')?.hash).toBe('a');
    const first = bus.getState('render.validated')?.pendingCheck;
    held[0]!.end(true);
    expect(await first).toBe(true);

    bus.setState('render.rendered', withMap('b', '10.0.0.2:80', 'b.example be\n'));
    await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe('b'));
    // set at once; its whole check starts once a pod reports the runtime operations applied
    expect(held).toHaveLength(1);
    await reportDeployed(bus, 'b');
    await vi.waitFor(() => expect(held).toHaveLength(2));
    const pending = bus.getState('render.validated')?.pendingCheck;
    expect(pending).toBeInstanceOf(Promise);
    held[1]!.end(false);
    expect(await pending).toBe(false);
    await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe('a'));
    await bus.idle();
    expect(published(bus, 'validation.failed').map((e) => e.payload)).toEqual([
      {
        hash: 'b',
        reason:
          'the whole configuration failed haproxy -c (its deployment had begun; the pods check what they reload): haproxy.cfg: refused',
      },
    ]);
    listener.onModuleDestroy();
    bus.close();
  });

  it('checks the whole of one render per turn: one replaced before its turn is never checked', async () => {
    const { bus, held, listener } = await startedWithA();
    const pendings: Promise<boolean>[] = [];
    for (const [hash, server] of [
      ['b', '10.0.0.2:80'],
      ['c', '10.0.0.3:80'],
      ['d', '10.0.0.4:80'],
    ] as const) {
      bus.setState('render.rendered', withMap(hash, server, 'a.example be\n'));
      await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe(hash));
      pendings.push(bus.getState('render.validated')!.pendingCheck!);
      if (hash !== 'b') continue;
      // b's deployment is reported: its whole check starts; c and d wait for their turn
      await reportDeployed(bus, 'b');
      await vi.waitFor(() => expect(held).toHaveLength(2));
    }
    held[1]!.end(true);
    // no pod reports c or d: their turn comes after WHOLE_CHECK_DEFER_MS; c was replaced by then
    await vi.waitFor(() => expect(held).toHaveLength(3));
    expect(held[2]!.hash).toContain('10.0.0.4:80');
    held[2]!.end(true);
    expect(await Promise.all(pendings)).toEqual([true, false, true]);
    expect(held).toHaveLength(3);
    listener.onModuleDestroy();
    bus.close();
  });

  it('is refused in its own terms (a map line without a value) without a whole check', async () => {
    const { bus, held, listener } = await startedWithA();
    await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe('a'));
    bus.setState('render.rendered', withMap('c', '10.0.0.1:80', 'a.example be\nc.example\n'));
    await vi.waitFor(() => expect(published(bus, 'validation.failed')).toHaveLength(1));
    expect(published(bus, 'validation.failed')[0]?.payload).toEqual({
      hash: 'c',
      reason: 'map:hosts.map:2: map line "c.example" has no value',
    });
    expect(held).toHaveLength(1);
    expect(bus.getState('render.validated')?.hash).toBe('a');
    listener.onModuleDestroy();
    bus.close();
  });

  it('sets a structural render before its whole check; a failure puts back the last that passed', async () => {
    const { bus, held, listener } = await startedWithA();
    // a new map: structural (a reload), set at once with its whole check pending
    const structural = {
      hash: 'n',
      outputs: {
        ...emptyOutputs(cfg('10.0.0.1:80')),
        maps: { 'hosts.map': 'a.example be\n', 'new.map': 'x y\n' },
      },
      configGeneration: 1,
    };
    bus.setState('render.rendered', structural);
    await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe('n'));
    const pending = bus.getState('render.validated')?.pendingCheck;
    expect(pending).toBeInstanceOf(Promise);
    await vi.waitFor(() => expect(held).toHaveLength(2));
    held[1]!.end(false);
    expect(await pending).toBe(false);
    await vi.waitFor(() => expect(bus.getState('render.validated')?.hash).toBe('a'));
    await bus.idle();
    expect(published(bus, 'validation.failed').map((e) => e.payload.hash)).toEqual(['n']);
    listener.onModuleDestroy();
    bus.close();
  });
});
