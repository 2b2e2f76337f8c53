/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- API objects are read loosely */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echoApp, send, Stack, waitFor } from '#testbed/stack';
import { chartDir, template } from './helm.js';
import {
  APP,
  HOST,
  NS,
  WEBHOOK_PORT,
  ingress,
  installProbes,
  type InstallBed,
} from './install-probes.js';

// The real proof of the chart: `helm install` with the pinned helm (server-side apply) against
// kube-sim, brought up by node-sim. Every pod of the chart runs as local processes: two
// controllers electing a leader, two HAProxy pods (agent + real HAProxy) configured by the
// leader, traffic through the HAProxy Service's node port (node-sim's kube-proxy).

const RESOURCES_HOOK = 'resources.haptic.haproxy-haptic.org';

describe('helm install, upgrade and uninstall of the chart on kube-sim with node-sim', () => {
  let stack: Stack;
  const bed = {} as InstallBed;
  const {
    get,
    controllerDeployment,
    lease,
    through,
    leaderFlags,
    kubectlApply,
    reviewAt,
    admissionLoop,
    readyEndpoints,
    servedByEveryPod,
    steadyLoop,
    releaseGone,
  } = installProbes(bed);

  beforeAll(async () => {
    // The opt-in failurePolicy Fail, so that the rollout below shows the webhook stays answered.
    stack = await Stack.start({
      install: 'chart',
      fast: true,
      readyTimeoutMs: 240_000,
      chartValues: { 'webhook.failurePolicy': 'Fail' },
    });
    bed.stack = stack;
    bed.entry = await stack.nodePortAddress(NS, 'haptic-haproxy', 'http');
  }, 300_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('installs every object helm template renders, with server-side apply, and the CRD', async () => {
    const expected = template(stack.chartValues, { release: Stack.RELEASE, namespace: NS });
    expect(expected.length).toBeGreaterThan(15);
    const missing = expected
      .filter(
        (m) =>
          stack.kubeSim.get(
            m.apiVersion,
            m.kind,
            m.metadata.namespace ? NS : '',
            m.metadata.name,
          ) === undefined,
      )
      .map((m) => `${m.kind}/${m.metadata.name}`);
    expect(missing).toEqual([]);
    const crd = stack.kubeSim.get(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      '',
      'haproxytemplateconfigs.haproxy-haptic.org',
    ) as any;
    expect(crd.status.conditions.find((c: any) => c.type === 'Established').status).toBe('True');
    const managers = (await controllerDeployment()).metadata.managedFields.map(
      (f: any) => `${f.manager}/${f.operation}`,
    );
    expect(managers).toContain('helm/Apply');
  });

  it('runs two controller pods that elect one leader through the Lease', async () => {
    const controllers = await stack.controllerPods();
    expect(controllers).toHaveLength(2);
    const holder = await waitFor('a Lease holder', async () => {
      const l = await lease();
      return l?.spec?.holderIdentity ? (l.spec.holderIdentity as string) : undefined;
    });
    expect(controllers.map((c) => c.name)).toContain(holder);
    const flags = await waitFor('haptic_leader on both replicas', async () => {
      const f = await leaderFlags(controllers);
      return f.every((x) => x === 0 || x === 1) ? f : undefined;
    });
    expect(flags.filter((x) => x === 1)).toHaveLength(1);
    const leaderIndex = flags.indexOf(1);
    expect(controllers[leaderIndex]!.name).toBe(holder);
  });

  it('configures both HAProxy pods: ready only once the rendered config serves /ready', async () => {
    const pods = await stack.haproxyPods();
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      const r = await fetch(`http://${p.ip}:${stack.topology.statsPort}/ready`);
      expect(r.status, `${p.name} /ready`).toBe(200);
    }
  });

  it('serves an Ingress through the HAProxy Service node port, and names that address in its status', async () => {
    await stack.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP } },
      ...echoApp(APP, 'blue', { replicas: 2 }),
      ...echoApp(APP, 'green'),
      ingress([{ path: '/', service: 'blue' }]),
    ]);
    await waitFor('blue through the node port', async () =>
      (await through()) === 'blue' ? true : undefined,
    );
    const status = await waitFor('Ingress status', async () => {
      const ing = await get(`/apis/networking.k8s.io/v1/namespaces/${APP}/ingresses/site`);
      return ing?.status?.loadBalancer?.ingress?.[0];
    });
    expect(status.ip).toBe(bed.entry.address);
    await servedByEveryPod('/', 'blue');
  });

  it('the webhook (on by default) is served by every controller replica; kubectl apply of a hostile Ingress is denied naming the object and the field, a valid one is admitted and served', async () => {
    const vwc = await get(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/haptic-webhook',
    );
    const hook = vwc.webhooks.find((w: any) => w.name === RESOURCES_HOOK);
    expect(hook.failurePolicy).toBe('Fail');
    expect(hook.clientConfig.service).toMatchObject({
      name: 'haptic-controller',
      namespace: NS,
      port: WEBHOOK_PORT,
    });
    // The caBundle is the CA of the chart-generated Secret the controllers serve from.
    const tls = await get(`/api/v1/namespaces/${NS}/secrets/haptic-webhook-tls`);
    expect(hook.clientConfig.caBundle).toBe(tls.data['ca.crt']);
    // Every replica answers, leader or not, with a certificate the caBundle verifies for the
    // Service's DNS name.
    const controllers = await stack.controllerPods();
    expect(controllers).toHaveLength(2);
    const probe = ingress([{ path: '/', service: 'blue' }], {
      name: 'direct',
      host: `direct.${HOST}`,
    });
    for (const c of controllers)
      expect(await reviewAt(c.ip, hook.clientConfig.caBundle, probe)).toEqual({
        uid: `direct-${c.ip}`,
        allowed: true,
      });

    const hostile = await kubectlApply(
      ingress([{ path: '/', service: 'blue' }], {
        name: 'evil',
        host: `evil.${HOST}`,
        annotations: { 'haproxy-haptic.org/timeout-server': '5s\nlua-load /tmp/evil.lua' },
      }),
    );
    expect(hostile.code).not.toBe(0);
    // One line, the untrusted newline shown escaped, the object and the annotation named.
    expect(hostile.err).toContain(
      `admission webhook "${RESOURCES_HOOK}" denied the request: Ingress ${APP}/evil: annotation haproxy-haptic.org/timeout-server: 5s\\nlua-load /tmp/evil.lua is not a duration`,
    );
    expect(
      await get(`/apis/networking.k8s.io/v1/namespaces/${APP}/ingresses/evil`),
    ).toBeUndefined();

    const valid = await kubectlApply(
      ingress([{ path: '/', service: 'green' }], {
        name: 'valid',
        host: `valid.${HOST}`,
        annotations: { 'haproxy-haptic.org/timeout-server': '5s' },
      }),
    );
    expect(valid).toEqual({ code: 0, err: '' });
    await waitFor('the admitted Ingress served through the node port', async () => {
      const r = await send({ ...bed.entry, host: `valid.${HOST}`, timeoutMs: 3000 });
      return r.status === 200 && (JSON.parse(r.body) as { service: string }).service === 'green'
        ? true
        : undefined;
    });
  });

  it('helm upgrade with a changed value rolls the controller; the new leader serves edits', async () => {
    const before = new Set((await stack.controllerPods()).map((p) => p.name));
    const haproxyBefore = (await stack.haproxyPods()).map((p) => p.name);
    const loop = steadyLoop();
    const edits = admissionLoop();
    try {
      const out = await stack.helm.ok([
        'upgrade',
        Stack.RELEASE,
        chartDir,
        '-n',
        NS,
        '--reuse-values',
        '--set',
        'controller.logLevel=debug',
      ]);
      expect(out).toContain('STATUS: deployed');
      await waitFor(
        'the controller Deployment rolled out: two new ready pods, the old ones gone',
        async () => {
          const d = await controllerDeployment();
          const pods = await stack.controllerPods();
          const all = await get(
            `/api/v1/namespaces/${NS}/pods?labelSelector=app.kubernetes.io/component%3Dcontroller`,
          );
          return d.status?.observedGeneration >= d.metadata.generation &&
            d.status?.updatedReplicas === 2 &&
            pods.length === 2 &&
            pods.every((p) => !before.has(p.name)) &&
            all.items.length === 2
            ? true
            : undefined;
        },
        240_000,
        500,
      );
      const d = await controllerDeployment();
      expect(d.spec.template.spec.containers[0].args).toContain('--log-level=debug');
      // A new leader took over, among the new pods.
      const now = (await stack.controllerPods()).map((p) => p.name);
      await waitFor('a new pod holds the Lease', async () =>
        now.includes((await lease())?.spec?.holderIdentity) ? true : undefined,
      );
    } finally {
      loop.stop();
      edits.stop();
    }
    const results = await loop.done;
    const admitted = await edits.done;
    console.log(
      `helm upgrade rolled the controller: ${results.ok} requests served, ${results.failed.length} failed; ${admitted.admitted} edits admitted by the webhook, ${admitted.refused.length} refused`,
    );
    expect(results.failed).toEqual([]);
    expect(results.ok).toBeGreaterThan(10);
    // failurePolicy Fail, and the webhook stayed answered through the rollout.
    expect(admitted.refused).toEqual([]);
    expect(admitted.admitted).toBeGreaterThan(3);
    // The HAProxy pods were not rolled by a controller value.
    expect((await stack.haproxyPods()).map((p) => p.name)).toEqual(haproxyBefore);
    // The new leader deploys: an edit made after the upgrade (admitted by the webhook, which the
    // API server reaches at a ready endpoint of the controller Service) is served.
    await stack.apply(
      ingress([
        { path: '/', service: 'blue' },
        { path: '/green', service: 'green' },
      ]),
    );
    await servedByEveryPod('/green', 'green');
  });

  it('a second helm upgrade that rolls the controller (and changes the config) drops no request', async () => {
    const before = new Set((await stack.controllerPods()).map((p) => p.name));
    const loop = steadyLoop();
    const edits = admissionLoop();
    try {
      await stack.helm.ok([
        'upgrade',
        Stack.RELEASE,
        chartDir,
        '-n',
        NS,
        '--reuse-values',
        '--set',
        'controller.logLevel=info',
      ]);
      await waitFor(
        'two new ready controller pods',
        async () => {
          const pods = await stack.controllerPods();
          return pods.length === 2 && pods.every((p) => !before.has(p.name)) ? true : undefined;
        },
        240_000,
        500,
      );
    } finally {
      loop.stop();
      edits.stop();
    }
    const results = await loop.done;
    const admitted = await edits.done;
    console.log(
      `second helm upgrade: ${results.ok} requests served, ${results.failed.length} failed; ${admitted.admitted} edits admitted by the webhook, ${admitted.refused.length} refused`,
    );
    expect(results.failed).toEqual([]);
    expect(results.ok).toBeGreaterThan(10);
    expect(admitted.refused).toEqual([]);
    expect(admitted.admitted).toBeGreaterThan(3);
  });

  it('a rolling restart of the HAProxy pods under load drops no request; a new pod gets traffic only once configured', async () => {
    const before = new Set((await stack.haproxyPods()).map((p) => p.name));
    const loop = steadyLoop();
    // What `kubectl rollout restart` does: a new pod-template annotation.
    const patch = await fetch(
      `${stack.kubeSim.url}/apis/apps/v1/namespaces/${NS}/deployments/haptic-haproxy`,
      {
        method: 'PATCH',
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: JSON.stringify({
          spec: {
            template: {
              metadata: {
                annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() },
              },
            },
          },
        }),
      },
    );
    expect(patch.status).toBe(200);
    const checked = new Set<string>();
    const unconfigured: string[] = [];
    try {
      await waitFor(
        'two new ready HAProxy pods, the old ones gone',
        async () => {
          // A new pod whose endpoint turned ready already serves the Ingress itself.
          for (const ip of await readyEndpoints()) {
            if (checked.has(ip)) continue;
            const r = await send({ address: ip, port: stack.topology.httpPort, host: HOST }).catch(
              (e: Error) => ({ status: 0, body: e.message }),
            );
            if (r.status !== 200) unconfigured.push(`${ip}: ${r.status} ${r.body.slice(0, 100)}`);
            checked.add(ip);
          }
          const all = await get(
            `/api/v1/namespaces/${NS}/pods?labelSelector=app.kubernetes.io/component%3Dloadbalancer`,
          );
          const ready = await stack.haproxyPods();
          return ready.length === 2 &&
            ready.every((p) => !before.has(p.name)) &&
            all.items.length === 2
            ? true
            : undefined;
        },
        240_000,
        100,
      );
    } finally {
      loop.stop();
    }
    const results = await loop.done;
    console.log(
      `rolling restart of the HAProxy pods: ${results.ok} requests served, ${results.failed.length} failed`,
    );
    expect(results.failed).toEqual([]);
    expect(results.ok).toBeGreaterThan(10);
    expect(unconfigured).toEqual([]);
    expect(checked.size).toBeGreaterThanOrEqual(4); // two old and two new endpoints were seen ready
  });

  it('helm uninstall leaves nothing of the release behind but the CRDs', async () => {
    // The application's objects are the user's, not the release's.
    for (const name of ['site', 'valid', 'probe'])
      await stack.delete(`/apis/networking.k8s.io/v1/namespaces/${APP}/ingresses/${name}`);
    const rendered = template(stack.chartValues, { release: Stack.RELEASE, namespace: NS });
    expect(rendered.map((m) => m.kind)).toContain('ValidatingWebhookConfiguration');
    await stack.helm.ok(['uninstall', Stack.RELEASE, '-n', NS, '--wait']);
    const left = rendered.filter(
      (m) =>
        stack.kubeSim.get(m.apiVersion, m.kind, m.metadata.namespace ? NS : '', m.metadata.name) !==
        undefined,
    );
    expect(left.map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([]);
    // No webhook configuration is left to refuse writes once nothing answers it.
    expect(
      (await get('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations')).items,
    ).toEqual([]);
    await releaseGone();
    // Only the stack's own default certificate is left among the Secrets (it was there before).
    expect(
      (await get(`/api/v1/namespaces/${NS}/secrets`)).items.map((s: any) => s.metadata.name),
    ).toEqual(['stack-default-tls']);
    expect(
      stack.kubeSim.get(
        'apiextensions.k8s.io/v1',
        'CustomResourceDefinition',
        '',
        'haproxytemplateconfigs.haproxy-haptic.org',
      ),
    ).toBeDefined();
    // The Lease is the controller's, not helm's: it stays, as on a real cluster. The last leader
    // released it when its pod was deleted (SIGTERM): it names no holder.
    const leftLease = await lease();
    expect(leftLease).toBeDefined();
    expect(leftLease.spec.holderIdentity ?? '').toBe('');
    // Nothing serves on the node port any more.
    await waitFor('the node port closed', async () =>
      (await through().catch(() => 'closed')) === 'closed' ? true : undefined,
    );
  });
});
