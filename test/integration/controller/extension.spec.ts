import { fileURLToPath } from 'node:url';
import { Inject, Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { InjectMetric, makeGaugeProvider } from '@willsoto/nestjs-prometheus';
import type { Gauge } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim } from '#testbed/kube-sim';
import {
  EVENT_BUS,
  resolveRunOptions,
  runController,
  type HapticBus,
  type RunningController,
} from '../../../apps/controller/src/index.js';

// runController from the package's public door, composed in process with a module of our own
// and a plain context provider: both reach the rendered configuration and the metrics page.

@Injectable()
class ConfigWatcher implements OnModuleInit {
  constructor(
    @Inject(EVENT_BUS) private readonly bus: HapticBus,
    @InjectMetric('team_config_generation') private readonly generation: Gauge,
  ) {}

  onModuleInit(): void {
    this.bus.subscribeState(
      'config.current',
      (e) => this.generation.set(e.payload.source.generation ?? 0),
      { name: 'team-config-watcher' },
    );
  }
}

@Module({
  providers: [
    ConfigWatcher,
    makeGaugeProvider({
      name: 'team_config_generation',
      help: 'Generation of the config in force.',
    }),
  ],
})
class TeamModule {}

const TEMPLATE = `global
# region={{ region }}
defaults
  mode http
  timeout connect 1s
  timeout client 1s
  timeout server 1s
frontend f
  bind 127.0.0.1:18081
`;

describe('runController(options, { modules, contextProviders })', () => {
  let sim: KubeSim;
  let c: RunningController;

  beforeAll(async () => {
    sim = await KubeSim.start({
      port: 0,
      manifests: [
        fileURLToPath(
          new URL('../../../helm/haptic/crds/haproxytemplateconfigs.yaml', import.meta.url),
        ),
      ],
    });
    await sim.apply({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'haptic' },
    });
    await sim.apply({
      apiVersion: 'haproxy-haptic.org/v1alpha1',
      kind: 'HAProxyTemplateConfig',
      metadata: { namespace: 'haptic', name: 'haptic' },
      spec: {
        credentialsSecretRef: { name: 'dp-creds' },
        podSelector: { matchLabels: { app: 'haproxy' } },
        controller: { reconcile: { debounce: '20ms', maxDelay: '200ms' } },
        watchedResources: {
          services: { apiVersion: 'v1', resources: 'services', indexBy: ['metadata.name'] },
        },
        haproxyConfig: { template: TEMPLATE },
      },
    });
    const options = resolveRunOptions(
      {
        kubeconfig: sim.kubeconfigPath,
        namespace: 'haptic',
        configName: 'haptic',
        address: '127.0.0.1',
        healthPort: '0',
        metricsPort: '0',
        logLevel: 'error',
        identity: 'integration-ext',
      },
      {},
    );
    c = await runController(options, {
      modules: [TeamModule],
      contextProviders: [{ name: 'region', provide: () => 'eu-west-1' }],
    });
  });
  afterAll(async () => {
    await c?.stop();
    await sim?.stop();
  });

  it('renders the plain context provider and serves the module metric on the one registry', async () => {
    const deadline = Date.now() + 45_000;
    let rendered = '';
    while (Date.now() < deadline && !rendered.includes('region=eu-west-1')) {
      const res = await fetch(`http://127.0.0.1:${c.healthPort}/debug/rendered`);
      rendered = res.status === 200 ? await res.text() : '';
      if (!rendered.includes('region=eu-west-1')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(rendered).toContain('# region=eu-west-1');
    const metrics = await (await fetch(`http://127.0.0.1:${c.metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^team_config_generation 1$/m);
    expect(metrics).toMatch(/^haptic_render_duration_seconds_count [1-9]/m);
  });
});
