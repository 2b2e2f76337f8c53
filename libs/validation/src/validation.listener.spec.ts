import { parseTemplateConfigText } from '#core';
import { createTestBus, published } from '#testing';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
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
    listener.onModuleInit();
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

  it('fails a render that arrives before any configuration', async () => {
    const bus = await createTestBus();
    const listener = new ValidationListener(
      bus,
      new ValidationService({ haproxyBin: '/bin/true' }),
      duration([]),
    );
    listener.onModuleInit();
    bus.setState('render.rendered', render('early', 'global\n'));
    await bus.idle();
    expect(published(bus, 'validation.failed').map((e) => e.payload.reason)).toEqual([
      'no configuration in force',
    ]);
    listener.onModuleDestroy();
    bus.close();
  });
});
