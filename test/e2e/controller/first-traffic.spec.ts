import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeForMajors } from '#testbed/testing';
import { waitFor } from '#testbed/stack';
import type { RunningEcho } from '#testbed/echo';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import type { RunningAgent } from '../../../apps/agent/src/index.js';
import { HAPROXY_CFG, HOSTS_MAP } from '../../support/map-routed.js';
import {
  runController,
  serviceWithEndpoint,
  startBed,
  templateConfig,
  type Bed,
} from '../support/bed.js';
import { DESIGN_METRICS, documentedMetrics, metricFamilies } from './metric-names.js';
import {
  freePort,
  getWithHost,
  promtoolCheck,
  printedPort,
  type HapticProcess,
} from './support.js';

const HAPROXY_IP = '127.0.0.61';
const ECHO_IP = '127.0.0.62';

// 3.0 is the production major; 2.6 runs the same scenario as a smoke test (DESIGN.md §7).
describeForMajors(
  ['3.0', '2.6'],
  'haptic run end to end: kube-sim, agent with a real HAProxy, echo backend',
  () => {
    let bed: Bed;
    let sim: KubeSim;
    let agent: RunningAgent;
    let echo: RunningEcho;
    let controller: HapticProcess;
    let httpPort: number;

    const put = (o: Omit<KubeObject, 'metadata'> & { metadata: Record<string, unknown> }) =>
      sim.apply(o as KubeObject);
    const viaHaproxy = (host: string) => getWithHost(HAPROXY_IP, httpPort, host);

    beforeAll(async () => {
      bed = await startBed({
        prefix: 'haptic-e2e-',
        agents: [HAPROXY_IP],
        echo: { address: ECHO_IP },
      });
      ({ sim, echo } = bed);
      agent = bed.agents[0]!;
      httpPort = await freePort(HAPROXY_IP);
      const spec = {
        templatingSettings: { extraContext: { http_port: httpPort } },
        watchedResources: {
          ingresses: {
            apiVersion: 'networking.k8s.io/v1',
            resources: 'ingresses',
            indexBy: ['metadata.namespace', 'metadata.name'],
          },
          services: {
            apiVersion: 'v1',
            resources: 'services',
            indexBy: ['metadata.namespace', 'metadata.name'],
          },
          endpointslices: {
            apiVersion: 'discovery.k8s.io/v1',
            resources: 'endpointslices',
            indexBy: ['metadata.namespace', "metadata.labels['kubernetes.io/service-name']"],
          },
        },
        maps: { 'hosts.map': { template: HOSTS_MAP } },
        haproxyConfig: { template: HAPROXY_CFG },
      };
      await sim.apply(templateConfig(agent.port, spec));
      for (const o of serviceWithEndpoint('apps', 'web', ECHO_IP, echo.listeners[0]!.port))
        await sim.apply(o);
      controller = runController({ kubeconfig: sim.kubeconfigPath, identity: 'e2e' });
    }, 60_000);

    afterAll(async () => {
      await bed?.stop([controller]);
    });

    it('becomes ready and deploys the first configuration (no Ingress yet: every host is unrouted)', async () => {
      const started = await printedPort(controller);
      await waitFor('readiness', async () =>
        (await fetch(`http://127.0.0.1:${started}/readyz`)).status === 200 ? true : undefined,
      );
      const r = await waitFor('HAProxy to serve the rendered configuration', async () => {
        const res = await viaHaproxy('web.example.com');
        return res.status === 404 ? res : undefined;
      });
      expect(r.body).toBe('no route');
    });

    it('routes a new Ingress host to its Service through HAProxy', async () => {
      await put({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { namespace: 'apps', name: 'web' },
        spec: {
          rules: [
            {
              host: 'web.example.com',
              http: {
                paths: [
                  {
                    path: '/',
                    pathType: 'Prefix',
                    backend: { service: { name: 'web', port: { number: 80 } } },
                  },
                ],
              },
            },
          ],
        },
      });
      const r = await waitFor('the Ingress host to answer', async () => {
        const res = await viaHaproxy('web.example.com');
        return res.status === 200 ? res : undefined;
      });
      expect(JSON.parse(r.body)).toMatchObject({ host: 'web.example.com', pod: 'web-0' });
    });

    it('shows the Ingress change on /debug/changes by correlation id, with its stages', async () => {
      const health = Number(/"healthPort":(\d+)/.exec(controller.output())![1]);
      const get = async (path: string) =>
        await (await fetch(`http://127.0.0.1:${health}${path}`)).json();
      type Change = {
        correlationId: string;
        change: string;
        run?: string;
        hash?: string;
        outcome: string;
        stagesMs: Record<string, number>;
        pods: { pod: string; stages: Record<string, number> }[];
      };
      expect(await get('/debug')).toMatchObject({
        endpoints: expect.arrayContaining(['/debug/changes']) as unknown,
      });
      const change = await waitFor('the Ingress change to be applied', async () => {
        const { changes } = (await get('/debug/changes')) as { changes: Change[] };
        return changes.find((c) => c.change === 'ingresses apps/web added');
      });
      expect(change.outcome).toBe('applied');
      for (const stage of ['index', 'debounce', 'render', 'validate', 'applied'])
        expect(typeof change.stagesMs[stage]).toBe('number');
      expect(change.pods.map((p) => p.pod)).toEqual(['haptic/haproxy-0']);
      expect(Object.keys(change.pods[0]!.stages)).toContain('plan');
      // the same correlation ids on the bus: the change, its render and its deployment
      const { events } = (await get('/debug/events')) as {
        events: { topic: string; correlationId: string; payload?: { hash?: string } }[];
      };
      const of = (topic: string, id: string | undefined) =>
        events.some((e) => e.topic === topic && e.correlationId === id);
      expect(of('resource.changed', change.correlationId)).toBe(true);
      expect(of('reconcile.triggered', change.run)).toBe(true);
      expect(of('render.completed', change.run)).toBe(true);
      expect(change.hash).toMatch(/./);
      // a deployment is matched by the render hash: a pod's worker may run it in another run's
      // async context (latest wins), so its correlation id need not be this run's
      expect(
        events.some((e) => e.topic === 'deploy.completed' && e.payload?.hash === change.hash),
      ).toBe(true);
      const metrics = Number(/"metricsPort":(\d+)/.exec(controller.output())![1]);
      const body = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
      for (const stage of ['index', 'debounce', 'render', 'validate', 'deploy', 'plan', 'applied'])
        expect(body).toMatch(
          new RegExp(`^haptic_change_stage_seconds_count\\{stage="${stage}"\\} [1-9]`, 'm'),
        );
    });

    it('stops routing the host when the Ingress is deleted', async () => {
      const del = await fetch(
        `${sim.url}/apis/networking.k8s.io/v1/namespaces/apps/ingresses/web`,
        {
          method: 'DELETE',
        },
      );
      expect(del.status).toBe(200);
      const r = await waitFor('the host to stop answering', async () => {
        const res = await viaHaproxy('web.example.com');
        return res.status === 404 ? res : undefined;
      });
      expect(r.body).toBe('no route');
    });

    it('exposes the DESIGN.md §9 metrics on the metrics port only, and promtool accepts them', async () => {
      const metrics = Number(/"metricsPort":(\d+)/.exec(controller.output())![1]);
      const health = Number(/"healthPort":(\d+)/.exec(controller.output())![1]);
      const body = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
      const families = metricFamilies(body);
      expect(DESIGN_METRICS.filter((m) => !families.has(m))).toEqual([]);
      // docs/operations/monitoring.md documents exactly the haptic_ metrics exposed.
      const documented = documentedMetrics();
      const exposed = [...families].filter((f) => f.startsWith('haptic_'));
      expect(exposed.filter((m) => !documented.has(m))).toEqual([]);
      expect([...documented].filter((m) => !families.has(m))).toEqual([]);
      expect(body).toMatch(
        /^haptic_deployments_total\{pod="haptic\/haproxy-0",result="applied"\} [1-9]/m,
      );
      expect(promtoolCheck(body)).toEqual({
        status: 0,
        output: '',
      });
      expect((await fetch(`http://127.0.0.1:${health}/metrics`)).status).toBe(404);
    });

    it('shuts down cleanly on SIGTERM: exit 0, listeners closed, watches closed', async () => {
      const health = Number(/"healthPort":(\d+)/.exec(controller.output())![1]);
      const metrics = Number(/"metricsPort":(\d+)/.exec(controller.output())![1]);
      controller.child.kill('SIGTERM');
      const exit = await controller.exited;
      expect(exit).toEqual({ code: 0, signal: null });
      for (const port of [health, metrics]) {
        const refused = await new Promise<boolean>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => (s.destroy(), resolve(false)));
          s.once('error', () => resolve(true));
        });
        expect(refused).toBe(true);
      }
      await waitFor(
        'kube-sim to see no open watch',
        () => (sim.openWatches === 0 ? true : undefined),
        5000,
      );
    });
  },
);
