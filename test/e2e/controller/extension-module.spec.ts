import { waitFor } from '#testbed/stack';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { haptic, promtoolCheck, root, type HapticProcess } from './support.js';

// The example module of examples/hello-module, loaded by `haptic run --module` from its package
// name (an npm workspace): haptic's code knows nothing of it. It counts renders in its own metric
// and adds the template variable `team`, which the config's template prints.
// (`haproxy -c` never binds the frontend's port.)
const HAPROXY_CFG = `global
  log stdout format raw local0 err
# {{ team.greeting }}: {{ team.ingresses }} ingresses
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend http
  bind 127.0.0.1:18080
  http-request return status 200 content-type text/plain string "{{ team.ingresses }}"
`;

const ingress = (name: string): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: 'apps', name },
  spec: { rules: [{ host: `${name}.example.com` }] },
});

const templateConfig = (extra: object = {}): KubeObject => ({
  apiVersion: 'haproxy-haptic.org/v1alpha1',
  kind: 'HAProxyTemplateConfig',
  metadata: { namespace: 'haptic', name: 'haptic' },
  spec: {
    credentialsSecretRef: { name: 'dp-creds' },
    podSelector: { matchLabels: { app: 'haproxy' } },
    controller: { reconcile: { debounce: '20ms', maxDelay: '200ms' } },
    watchedResources: {
      ingresses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingresses',
        indexBy: ['metadata.namespace', 'metadata.name'],
      },
    },
    haproxyConfig: { template: HAPROXY_CFG },
    ...extra,
  },
});

describe('haptic run --module: a Nest module from an npm workspace, composed without editing haptic', () => {
  let sim: KubeSim;
  let controller: HapticProcess;
  const port = (name: string) =>
    Number(new RegExp(`"${name}":(\\d+)`).exec(controller.output())?.[1]);

  beforeAll(async () => {
    sim = await KubeSim.start({
      port: 0,
      manifests: [join(root, 'helm/haptic/crds/haproxytemplateconfigs.yaml')],
    });
    for (const name of ['haptic', 'apps'])
      await sim.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    await sim.apply(ingress('one'));
    await sim.apply(templateConfig());
    controller = haptic([
      'run',
      ...['--kubeconfig', sim.kubeconfigPath, '-n', 'haptic', '-c', 'haptic'],
      ...['--address', '127.0.0.1', '--health-port', '0', '--metrics-port', '0'],
      ...['--identity', 'e2e-ext', '--log-level', 'warn'],
      ...['--module', '@haptic-examples/hello-module'],
    ]);
    await waitFor('the controller to print its ports', () =>
      port('metricsPort') > 0 ? true : undefined,
    );
  }, 60_000);

  afterAll(async () => {
    if (controller && controller.child.exitCode === null) {
      controller.child.kill('SIGTERM');
      await controller.exited;
    }
    await sim?.stop();
  });

  const rendered = async (): Promise<string | undefined> => {
    const res = await fetch(`http://127.0.0.1:${port('healthPort')}/debug/rendered`);
    if (res.status !== 200) return undefined;
    const body = (await res.json()) as { outputs: { haproxyConfig?: string } };
    return JSON.stringify(body.outputs);
  };

  it('renders and validates the template variable the module contributes', async () => {
    const text = await waitFor(
      'the rendered config to print team.greeting',
      async () => {
        const t = await rendered();
        return t?.includes('hello from the example module: 1 ingresses') ? t : undefined;
      },
      60_000,
    );
    expect(text).toContain('# hello from the example module: 1 ingresses');
  });

  it('follows the index: a second Ingress changes the variable', async () => {
    await sim.apply(ingress('two'));
    const text = await waitFor(
      'the rendered config to count two Ingresses',
      async () => {
        const t = await rendered();
        return t?.includes(': 2 ingresses') ? t : undefined;
      },
      60_000,
    );
    expect(text).toContain('# hello from the example module: 2 ingresses');
  });

  it("serves the module's own metric on haptic's metrics port, and promtool accepts the page", async () => {
    const body = await (await fetch(`http://127.0.0.1:${port('metricsPort')}/metrics`)).text();
    const count = Number(/^example_renders_observed_total (\d+)/m.exec(body)?.[1]);
    expect(count).toBeGreaterThanOrEqual(2);
    expect(body).toMatch(/^haptic_render_duration_seconds_count /m);
    expect(promtoolCheck(body)).toEqual({
      status: 0,
      output: '',
    });
    const health = await fetch(`http://127.0.0.1:${port('healthPort')}/metrics`);
    expect(health.status).toBe(404);
  });

  it('haptic render --module renders the same bytes as haptic run, the variable included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haptic-ext-render-'));
    try {
      const live = await waitFor('the live render of two Ingresses', async () => {
        const res = await fetch(`http://127.0.0.1:${port('healthPort')}/debug/rendered`);
        const body = (await res.json()) as { outputs: { haproxyConfig?: string } };
        return body.outputs.haproxyConfig?.includes(': 2 ingresses')
          ? body.outputs.haproxyConfig
          : undefined;
      });
      writeFileSync(join(dir, 'config.json'), JSON.stringify(templateConfig()));
      writeFileSync(join(dir, 'one.json'), JSON.stringify(ingress('one')));
      writeFileSync(join(dir, 'two.json'), JSON.stringify(ingress('two')));
      const args = ['render', '-f', join(dir, 'config.json'), '--resources', dir];
      const out = join(dir, 'out');
      const run = haptic([...args, '-o', out, '--module', '@haptic-examples/hello-module']);
      expect({ exit: await run.exited, output: run.output() }).toMatchObject({
        exit: { code: 0 },
      });
      const offline = readFileSync(join(out, 'haproxy.cfg'), 'utf8');
      expect(offline).toContain('# hello from the example module: 2 ingresses');
      expect(offline).toBe(live);
      // without the module the variable is unknown: the templates do not compile (exit 2)
      const bare = haptic(args);
      expect((await bare.exited).code).toBe(2);
      expect(bare.output()).toMatch(/team/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("haptic validate --module runs an assertion on the module's variable", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'haptic-ext-validate-'));
    try {
      const test = (pattern: string) => ({
        fixtures: { ingresses: [ingress('one'), ingress('two'), ingress('three')] },
        assertions: [{ type: 'contains', pattern }],
      });
      const config = templateConfig({
        validationTests: {
          'team-greets': test('^# hello from the example module: 3 ingresses$'),
          'team-miscounts': test('^# hello from the example module: 4 ingresses$'),
        },
      });
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
      const args = ['validate', '-f', join(dir, 'config.json'), '-o', 'json'];
      const modules = ['--module', '@haptic-examples/hello-module'];
      const run = haptic([...args, ...modules, '--test', 'team-greets']);
      expect({ exit: await run.exited, output: run.output() }).toMatchObject({
        exit: { code: 0 },
      });
      expect(run.output()).toMatch(/"name":\s*"team-greets",\s*"passed":\s*true/);
      // the same assertion can fail: it reads the variable, not a constant
      const wrong = haptic([...args, ...modules, '--test', 'team-miscounts']);
      expect((await wrong.exited).code).toBe(1);
      const bare = haptic([...args, '--test', 'team-greets']);
      expect((await bare.exited).code).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops cleanly with the module loaded', async () => {
    controller.child.kill('SIGTERM');
    expect(await controller.exited).toEqual({ code: 0, signal: null });
  });
});
