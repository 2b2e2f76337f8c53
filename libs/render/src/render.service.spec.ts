import { readFileSync } from 'node:fs';
import { Test } from '@nestjs/testing';
import { BusModule } from '#bus';
import { parseTemplateConfigText } from '#core';
import { describe, expect, it } from 'vitest';
import { snapshotOf } from '#index';
import { RenderModule } from './render.module.js';
import { NoTemplatesError } from './render.errors.js';
import { RENDER_CONTEXT_PROVIDERS, RenderService } from './render.service.js';

const config = (() => {
  const parsed = parseTemplateConfigText(readFileSync('test/fixtures/config/minimal.yaml', 'utf8'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
})();

/** The config's indexBy per watched resource: the snapshot holds every one, as in production. */
const indexBy = (): Record<string, readonly string[]> =>
  Object.fromEntries(Object.entries(config.spec.watchedResources).map(([n, w]) => [n, w.indexBy]));

describe('RenderService', () => {
  it('compiles a config version and renders a snapshot through the Nest module', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [BusModule, RenderModule],
    }).compile();
    const service = moduleRef.get(RenderService);
    const snap = snapshotOf(indexBy(), {
      ingresses: [
        {
          metadata: { name: 'web', namespace: 'default' },
          spec: { rules: [{ host: 'example.com' }] },
        },
      ],
    });
    expect(() => service.render(snap)).toThrow(NoTemplatesError);
    expect(service.compile(config).ok).toBe(true);
    const result = service.render(snap);
    expect(result.ok && result.outputs.maps['hosts.map']).toContain('example.com default_web');
    await moduleRef.close();
  });

  it('takes context providers through its DI token', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        BusModule,
        RenderModule.forRootAsync({
          useFactory: () => [{ name: 'site', provide: () => ({ name: 'eu-1' }) }],
        }),
      ],
    }).compile();
    const service = moduleRef.get(RenderService);
    const spec = { ...config.spec, haproxyConfig: { template: 'site {{ site.name }}' } };
    expect(service.compile({ ...config, spec }).ok).toBe(true);
    const result = service.render(snapshotOf(indexBy(), {}));
    expect(result.ok && result.outputs.haproxyConfig).toBe('site eu-1');
    expect(moduleRef.get(RENDER_CONTEXT_PROVIDERS)).toHaveLength(1);
    await moduleRef.close();
  });

  it('takes a fixed provider list with forRoot', async () => {
    const provider = { name: 'zone', provide: () => 'z1' };
    const moduleRef = await Test.createTestingModule({
      imports: [BusModule, RenderModule.forRoot({ contextProviders: [provider] })],
    }).compile();
    const service = moduleRef.get(RenderService);
    const spec = { ...config.spec, haproxyConfig: { template: '{{ zone }}' } };
    expect(service.compile({ ...config, spec }).ok).toBe(true);
    const result = service.render(snapshotOf(indexBy(), {}));
    expect(result.ok && result.outputs.haproxyConfig).toBe('z1');
    await moduleRef.close();
  });

  it('keeps the current templates when a new version does not compile', () => {
    const service = new RenderService();
    expect(service.compile(config).ok).toBe(true);
    const broken = {
      ...config,
      spec: { ...config.spec, haproxyConfig: { template: '{{ x | nope }}' } },
    };
    expect(service.compile(broken).ok).toBe(false);
    expect(service.ready).toBe(true);
  });
});
