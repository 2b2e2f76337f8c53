import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeForMajors, ingressObject } from '#testbed/testing';
import { waitFor } from '#testbed/stack';
import type { RunningEcho } from '#testbed/echo';
import { generateCertificate, type KubeObject, type KubeSim } from '#testbed/kube-sim';
import type { RunningAgent } from '../../../apps/agent/src/index.js';
import {
  runController,
  serviceWithEndpoint,
  startBed,
  templateConfig,
  type Bed,
} from '../support/bed.js';
import { runNode } from '../ingress-library/library.js';
import {
  freePort,
  getWithHost,
  promtoolCheck,
  root,
  type HapticProcess,
} from '../controller/support.js';
import { DESIGN_METRICS, metricFamilies } from '../controller/metric-names.js';

// The admission path end to end: kube-sim calls the controller's webhook over HTTPS as an API
// server does (ValidatingWebhookConfiguration, caBundle, failurePolicy), for writes made with the
// real kubectl; the controller runs the Ingress library against an agent with a real HAProxy.

const HAPROXY_IP = '127.0.0.71';
const ECHO_IP = '127.0.0.72';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const RESOURCES_HOOK = 'resources.haptic.haproxy-haptic.org';
const CONFIG_HOOK = 'config.haptic.haproxy-haptic.org';

interface Run {
  code: number;
  out: string;
  err: string;
}

describeForMajors(
  ['3.0'],
  'admission webhook through kube-sim (kubectl, Ingress library, real HAProxy)',
  () => {
    let bed: Bed;
    let sim: KubeSim;
    let agent: RunningAgent;
    let echo: RunningEcho;
    let controller: HapticProcess;
    let dir: string;
    let httpPort: number;
    let metricsPort: number;

    const put = (o: Omit<KubeObject, 'metadata'> & { metadata: Record<string, unknown> }) =>
      sim.apply(o as KubeObject);
    const kubectl = (...args: string[]): Promise<Run> =>
      new Promise((resolve) => {
        const env = {
          ...process.env,
          KUBECONFIG: sim.kubeconfigPath,
          KUBECACHEDIR: join(dir, 'kcache'),
          HOME: dir,
        };
        execFile(join(root, '.tools/bin/kubectl'), args, { env, timeout: 60_000 }, (e, out, err) =>
          resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
        );
      });
    const applyFile = (name: string, o: object, verb = 'apply') => {
      const file = join(dir, name);
      writeFileSync(file, stringify(o, { lineWidth: 0 }));
      return kubectl(verb, '-f', file);
    };
    const webhookCount = async (kind: string, result: string): Promise<number> => {
      const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const m = new RegExp(
        `^haptic_webhook_requests_total\\{kind="${kind}",result="${result}"\\} (\\d+)`,
        'm',
      ).exec(body);
      return m ? Number(m[1]) : 0;
    };
    const viaHaproxy = (host: string) => getWithHost(HAPROXY_IP, httpPort, host);
    const ingress = (name: string, host: string, annotations: Record<string, string> = {}) =>
      ingressObject({ name, host, cls: 'haptic', annotations });

    beforeAll(async () => {
      bed = await startBed({
        prefix: 'haptic-webhook-e2e-',
        agents: [HAPROXY_IP],
        echo: { address: ECHO_IP, context: { ingress: 'web' } },
      });
      ({ sim, echo, dir } = bed);
      agent = bed.agents[0]!;
      mkdirSync(join(dir, 'tls'));
      const tls = await generateCertificate({
        dnsNames: ['localhost'],
        ipAddresses: ['127.0.0.1'],
      });
      writeFileSync(join(dir, 'tls', 'tls.crt'), tls.cert);
      writeFileSync(join(dir, 'tls', 'tls.key'), tls.key);
      httpPort = await freePort(HAPROXY_IP);
      const [httpsPort, statsPort] = [await freePort(HAPROXY_IP), await freePort(HAPROXY_IP)];
      await put({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'haptic' },
        spec: { controller: 'haproxy-haptic.org/ingress-controller' },
      });
      for (const o of serviceWithEndpoint('apps', 'web', ECHO_IP, echo.listeners[0]!.port))
        await put(o);
      // The Ingress library as the project ships it (assembled without its tests), opted in.
      const lib = await runNode(['scripts/assemble-library.mjs', '--without-tests']);
      expect(lib.code).toBe(0);
      const config = parse(lib.stdout) as {
        metadata: Record<string, unknown>;
        spec: {
          dataplane?: object;
          templatingSettings: { extraContext: Record<string, unknown> };
          watchedResources: { ingresses: Record<string, unknown> };
        } & Record<string, unknown>;
      };
      const spec = config.spec;
      Object.assign(spec.templatingSettings.extraContext, {
        http_port: httpPort,
        https_port: httpsPort,
        stats_port: statsPort,
      });
      spec.watchedResources.ingresses['enableValidationWebhook'] = true;
      await put(templateConfig(agent.port, spec));
      controller = runController({
        kubeconfig: sim.kubeconfigPath,
        identity: 'e2e',
        args: ['--webhook-port', '0', '--webhook-cert-dir', join(dir, 'tls')],
      });
      const webhookPort = await waitFor(
        'the controller to print its ports',
        () => {
          const m = /"webhookPort":(\d+)/.exec(controller.output());
          return m ? Number(m[1]) : undefined;
        },
        60_000,
      );
      metricsPort = Number(/"metricsPort":(\d+)/.exec(controller.output())![1]);
      const caBundle = b64(tls.cert);
      const clientConfig = { url: `https://127.0.0.1:${webhookPort}/validate`, caBundle };
      await put({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'haptic-webhook' },
        webhooks: [
          {
            name: RESOURCES_HOOK,
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Fail',
            timeoutSeconds: 10,
            clientConfig,
            rules: [
              {
                apiGroups: ['networking.k8s.io'],
                apiVersions: ['v1'],
                resources: ['ingresses'],
                operations: ['CREATE', 'UPDATE'],
                scope: '*',
              },
            ],
          },
          {
            name: CONFIG_HOOK,
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            failurePolicy: 'Ignore',
            timeoutSeconds: 10,
            clientConfig,
            rules: [
              {
                apiGroups: ['haproxy-haptic.org'],
                apiVersions: ['v1alpha1'],
                resources: ['haproxytemplateconfigs'],
                operations: ['CREATE', 'UPDATE'],
                scope: 'Namespaced',
              },
            ],
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'haptic' } },
          },
        ],
      });
    }, 120_000);

    afterAll(async () => {
      if (process.env['WEBHOOK_E2E_DEBUG']) console.log(controller?.output());
      if (controller && controller.child.exitCode === null) {
        controller.child.kill('SIGTERM');
        await controller.exited;
      }
      await bed?.stop();
    });

    it('allows a valid Ingress (kubectl apply), which then serves traffic', async () => {
      const before = await webhookCount('resource', 'allowed');
      const r = await applyFile('web.yaml', ingress('web', 'web.example.com'));
      expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
      expect(await webhookCount('resource', 'allowed')).toBe(before + 1);
      const served = await waitFor(
        'the Ingress host to answer through HAProxy',
        async () => {
          const res = await viaHaproxy('web.example.com');
          return res.status === 200 ? res : undefined;
        },
        60_000,
      );
      expect(JSON.parse(served.body)).toMatchObject({ host: 'web.example.com' });
    });

    it('denies an Ingress whose annotation carries a newline and a lua-load line, naming the annotation', async () => {
      const before = await webhookCount('resource', 'denied');
      const evil = ingress('evil', 'evil.example.com', {
        'haproxy-haptic.org/timeout-server': '5s\nlua-load /tmp/evil.lua',
      });
      const r = await applyFile('evil.yaml', evil);
      expect(r.code).not.toBe(0);
      // one line, the untrusted newline shown escaped, the annotation named
      expect(r.err).toContain(
        `admission webhook "${RESOURCES_HOOK}" denied the request: Ingress apps/evil: annotation haproxy-haptic.org/timeout-server: 5s\\nlua-load /tmp/evil.lua is not a duration`,
      );
      expect(sim.get('networking.k8s.io/v1', 'Ingress', 'apps', 'evil')).toBeUndefined();
      expect(await webhookCount('resource', 'denied')).toBe(before + 1);
    });

    it('denies an invalid HAProxyTemplateConfig while the running one keeps serving', async () => {
      const running = sim.get(
        'haproxy-haptic.org/v1alpha1',
        'HAProxyTemplateConfig',
        'haptic',
        'haptic',
      )!;
      const before = await webhookCount('config', 'denied');
      const broken = structuredClone(running) as KubeObject & {
        spec: { haproxyConfig: { template: string } };
      };
      // valid Liquid and valid structure, but HAProxy refuses the keyword: only `haproxy -c` can tell
      broken.spec.haproxyConfig.template = broken.spec.haproxyConfig.template.replace(
        /^defaults\n/m,
        'defaults\n  timeout bogus 5s\n',
      );
      expect(broken.spec.haproxyConfig.template).toContain('timeout bogus 5s');
      const r = await applyFile('broken-config.yaml', broken, 'replace');
      expect(r.code).not.toBe(0);
      expect(r.err).toContain(
        `admission webhook "${CONFIG_HOOK}" denied the request: HAProxyTemplateConfig haptic/haptic:`,
      );
      expect(r.err).toContain(
        'its render is not valid: haproxy.cfg:8 (probably from template "haproxy.cfg" line 26): \'timeout\' supports',
      );
      expect(r.err).toContain("(got 'bogus')");
      const now = sim.get(
        'haproxy-haptic.org/v1alpha1',
        'HAProxyTemplateConfig',
        'haptic',
        'haptic',
      )!;
      expect(now.metadata.resourceVersion).toBe(running.metadata.resourceVersion);
      expect(await webhookCount('config', 'denied')).toBe(before + 1);
      const res = await viaHaproxy('web.example.com');
      expect(res.status).toBe(200);
    });

    it('after a reconcile, a deployment and webhook calls: every DESIGN.md §9 metric, and promtool accepts the page', async () => {
      const body = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const families = metricFamilies(body);
      expect(DESIGN_METRICS.filter((m) => !families.has(m))).toEqual([]);
      // the metrics of what happened above hold samples, not only their declarations
      expect(body).toMatch(/^haptic_reconcile_total\{result="triggered"\} [1-9]/m);
      expect(body).toMatch(/^haptic_render_duration_seconds_count [1-9]/m);
      expect(body).toMatch(/^haptic_validation_duration_seconds_count\{result="valid"\} [1-9]/m);
      expect(body).toMatch(
        /^haptic_deployments_total\{pod="haptic\/haproxy-0",result="applied"\} [1-9]/m,
      );
      expect(body).toMatch(
        /^haptic_webhook_requests_total\{kind="resource",result="allowed"\} [1-9]/m,
      );
      expect(body).toMatch(
        /^haptic_webhook_requests_total\{kind="config",result="denied"\} [1-9]/m,
      );
      expect(body).toMatch(/^haptic_webhook_duration_seconds_count\{kind="resource"\} [1-9]/m);
      expect(body).toMatch(/^haptic_leader 1$/m);
      expect(promtoolCheck(body)).toEqual({
        status: 0,
        output: '',
      });
      expect(readFileSync(join(dir, 'tls', 'tls.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');
    });
  },
);
