import { Test } from '@nestjs/testing';
import { BusModule, EVENT_BUS } from '#bus';
import { parseTemplateConfig } from '#core';
import type { HapticBus } from '#events';
import { IndexModule, ResourceIndex } from '#index';
import { describe, expect, it } from 'vitest';
import { FakeKubeApi } from '#testbed/testing';
import { WatchModule } from './watch.module.js';
import { KUBE_API } from './watch.tokens.js';

const ING = { apiVersion: 'networking.k8s.io/v1', plural: 'ingresses' };

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error('timed out');
}

describe('WatchModule with IndexModule', () => {
  it('indexes what the API holds once config.current is set, and publishes the events', async () => {
    const api = new FakeKubeApi();
    api.write(ING, 'ADDED', { metadata: { namespace: 'a', name: 'web' } });
    api.write({ apiVersion: 'v1', plural: 'secrets' }, 'ADDED', {
      metadata: { namespace: 'h', name: 'creds' },
      stringData: { dataplane_username: 'u', dataplane_password: 'p' },
    });
    const moduleRef = await Test.createTestingModule({
      imports: [
        BusModule,
        IndexModule.forRoot({ cache: { ttlMs: 1000 } }),
        WatchModule.forRoot({
          timing: { backoffInitialMs: 1, backoffMaxMs: 5, unlistableRetryMs: 20 },
        }),
      ],
    })
      .overrideProvider(KUBE_API)
      .useValue(api)
      .compile();
    const app = await moduleRef.init();
    const bus = app.get<HapticBus>(EVENT_BUS);
    const parsed = parseTemplateConfig({
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      metadata: { name: 'cfg', namespace: 'h' },
      spec: {
        credentialsSecretRef: { name: 'creds' },
        podSelector: { matchLabels: { app: 'haproxy' } },
        haproxyConfig: { template: 'global' },
        watchedResources: {
          ingresses: {
            apiVersion: 'networking.k8s.io/v1',
            resources: 'ingresses',
            indexBy: ['metadata.namespace'],
          },
          secrets: {
            apiVersion: 'v1',
            resources: 'secrets',
            indexBy: ['metadata.name'],
            store: 'on-demand',
          },
        },
      },
    });
    if (!parsed.ok) throw new Error('bad fixture');
    bus.setState('config.current', parsed.config);
    const topics = () => bus.history().map((e) => e.topic);
    await until(() => topics().includes('index.synced'));
    const index = app.get(ResourceIndex);
    const snap = await index.snapshot();
    expect(snap.list('ingresses').map((o) => o.metadata.name)).toEqual(['web']);
    // The on-demand secret came through watch's fetch port.
    expect(snap.lookup('secrets', ['creds'])[0]?.['stringData']).toEqual({
      dataplane_username: 'u',
      dataplane_password: 'p',
    });
    expect(bus.getState('dataplane.credentials')).toEqual({ username: 'u', password: 'p' });
    api.write(ING, 'ADDED', { metadata: { namespace: 'a', name: 'api' } });
    await until(() =>
      bus
        .history()
        .some((e) => e.topic === 'resource.changed' && JSON.stringify(e.payload).includes('"api"')),
    );
    await app.close();
  });
});
