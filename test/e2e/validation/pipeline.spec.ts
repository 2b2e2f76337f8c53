import { Test, type TestingModule } from '@nestjs/testing';
import { BusModule, EVENT_BUS } from '#bus';
import { parseTemplateConfigText, type TemplateConfig } from '#core';
import type { HapticBus, HapticFacts } from '#events';
import { snapshotOf } from '#index';
import { RenderListener, RenderModule } from '#render';
import { describeForMajors } from '#testbed/testing';
import { ValidationListener, ValidationModule } from '#validation';
import { afterEach, beforeEach, expect, it } from 'vitest';

function config(globalExtra: string, generation: number): TemplateConfig {
  const parsed = parseTemplateConfigText(`
apiVersion: haproxy-haptic.org/v1alpha1
kind: HAProxyTemplateConfig
metadata: { name: pipeline, namespace: haptic, generation: ${generation} }
spec:
  credentialsSecretRef: { name: creds }
  podSelector: { matchLabels: { app: haproxy } }
  watchedResources:
    ingresses: { apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.namespace, metadata.name] }
  templateSnippets:
    global-extra: { template: "${globalExtra}" }
  haproxyConfig:
    template: |
      global
        log stdout format raw local0
      {% render "global-extra" %}
      defaults
        mode http
        timeout connect 1s
        timeout client 1s
        timeout server 1s
      frontend http
        bind :80
      {%- for ing in resources.ingresses %}
        use_backend be_{{ ing.metadata.name }} if { hdr(host) -i {{ ing.spec.rules[0].host }} }
      {%- endfor %}
      {%- for ing in resources.ingresses %}
      backend be_{{ ing.metadata.name }}
        balance roundrobin
        server s1 127.0.0.1:8080
      {%- endfor %}
`);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

const snapshot = snapshotOf(
  { ingresses: ['metadata.namespace', 'metadata.name'] },
  {
    ingresses: [
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: 'web', namespace: 'default' },
        spec: { rules: [{ host: 'web.example.com' }] },
      },
    ],
  },
);

/** The next validation fact (completed or failed). */
function nextValidation(bus: HapticBus): Promise<{
  topic: string;
  payload: HapticFacts['validation.failed'] | HapticFacts['validation.completed'];
}> {
  return new Promise((resolve) => {
    const offs = [
      bus.subscribe('validation.completed', (e) => {
        offs.forEach((o) => o());
        resolve({ topic: e.topic, payload: e.payload });
      }),
      bus.subscribe('validation.failed', (e) => {
        offs.forEach((o) => o());
        resolve({ topic: e.topic, payload: e.payload });
      }),
    ];
  });
}

// RenderModule → render.rendered → ValidationModule → render.validated, as `haptic run` wires them.
describeForMajors(['2.6', '3.0'], 'render → validate pipeline', (haproxy) => {
  let ref: TestingModule;
  let bus: HapticBus;
  beforeEach(async () => {
    ref = await Test.createTestingModule({
      imports: [
        BusModule,
        RenderModule.forRoot({ snapshotSource: { snapshot: () => snapshot } }),
        ValidationModule.forRoot({ haproxyBin: haproxy.bin, concurrency: 1 }),
      ],
    }).compile();
    await ref.init();
    bus = ref.get<HapticBus>(EVENT_BUS);
    // this replica leads: start the leader-only work as the LeaderModule would
    await ref.get(RenderListener).startLeading();
    ref.get(ValidationListener).startLeading();
  });
  afterEach(async () => ref.close());

  it('validates each render and keeps the last valid one when a template emits lua-load', async () => {
    let outcome = nextValidation(bus);
    bus.setState('config.current', config('  maxconn 100', 1));
    // A new config is compiled at once but rendered on the reconcile loop's next trigger.
    await bus.publish('reconcile.triggered', { reason: 'config', coalesced: 0 });
    expect((await outcome).topic).toBe('validation.completed');
    const good = bus.getState('render.validated');
    expect(good?.outputs.haproxyConfig).toContain('backend be_web');

    outcome = nextValidation(bus);
    bus.setState('config.current', config('  lua-load /etc/haproxy/general/x.lua', 2));
    await bus.publish('reconcile.triggered', { reason: 'config', coalesced: 0 });
    const refused = await outcome;
    expect(refused.topic).toBe('validation.failed');
    expect((refused.payload as HapticFacts['validation.failed']).reason).toBe(
      `haproxy.cfg:3 (probably from template "global-extra" line 1): 'lua-load /etc/haproxy/general/x.lua' is refused: it loads and runs Lua code (allow with spec.validation.allowedDirectives: [lua-load])`,
    );
    expect(bus.getState('render.validated')?.hash).toBe(good?.hash);
  });
});
