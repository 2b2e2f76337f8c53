import { Global, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { BusModule, EVENT_BUS } from '#bus';
import { METRICS_REGISTRY, type HapticBus } from '#events';
import { IndexModule, ResourceIndex } from '#index';
import { KubeSim } from '#testbed/kube-sim';
import { WatchModule } from '#watch';
import { register, type Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { converge, CRD, FAST } from './harness.js';

@Global()
@Module({
  providers: [{ provide: METRICS_REGISTRY, useValue: register }], // the registry the lib metric providers use
  exports: [METRICS_REGISTRY],
})
class TestMetricsModule {}

describe('WatchModule + IndexModule in one Nest context against kube-sim', () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await KubeSim.start({ port: 0, bookmarkIntervalMs: 300 });
  });
  afterAll(async () => {
    await sim.stop();
  });

  it('follows the HAProxyTemplateConfig, indexes what it names and publishes the events', async () => {
    await sim.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'haptic' } },
      CRD,
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { namespace: 'default', name: 'web' },
        spec: { rules: [{ host: 'web.example.com' }] },
      },
      {
        apiVersion: 'haproxy-haptic.org/v1alpha1',
        kind: 'HAProxyTemplateConfig',
        metadata: { namespace: 'haptic', name: 'haptic' },
        spec: {
          credentialsSecretRef: { name: 'creds' },
          podSelector: { matchLabels: { app: 'haproxy' } },
          haproxyConfig: { template: 'global' },
          watchedResources: {
            ingresses: {
              apiVersion: 'networking.k8s.io/v1',
              resources: 'ingresses',
              indexBy: ['metadata.namespace', 'metadata.name'],
            },
          },
        },
      },
    ]);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(sim.kubeconfigPath);
    const moduleRef = await Test.createTestingModule({
      imports: [
        BusModule,
        TestMetricsModule,
        IndexModule.forRoot(),
        WatchModule.forRoot({
          kubeConfig,
          config: { namespace: 'haptic', name: 'haptic' },
          timing: FAST,
        }),
      ],
    }).compile();
    const app = await moduleRef.init();
    try {
      const bus = app.get<HapticBus>(EVENT_BUS);
      const topics = () => bus.history().map((e) => e.topic);
      expect(
        await converge(() => (topics().includes('index.synced') ? undefined : topics().join())),
      ).toBeUndefined();
      expect(topics()).toContain('config.accepted');
      expect(bus.getState('config.current')?.source.name).toBe('haptic');
      const index = app.get(ResourceIndex);
      expect((await index.snapshot()).lookup('ingresses', ['default', 'web'])).toHaveLength(1);

      await sim.apply({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { namespace: 'default', name: 'api' },
        spec: { defaultBackend: { service: { name: 'api', port: { number: 80 } } } },
      });
      const changed = () =>
        bus
          .history()
          .some(
            (e) => e.topic === 'resource.changed' && JSON.stringify(e.payload).includes('"api"'),
          );
      expect(await converge(() => (changed() ? undefined : 'waiting'))).toBeUndefined();
      const metrics = await app.get<Registry>(METRICS_REGISTRY).metrics();
      expect(metrics).toContain('haptic_resources{watched="ingresses"} 2');
      expect(metrics).toContain('haptic_index_synced 1');
    } finally {
      await app.close();
    }
  });
});
