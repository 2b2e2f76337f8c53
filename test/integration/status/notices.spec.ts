import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeSim, type KubeObject } from '#kube-sim';
import { runController } from '../../../apps/controller/src/run/compose.js';
import type { RunningController } from '../../../apps/controller/src/run/controller-app.js';
import { resolveRunOptions } from '../../../apps/controller/src/run/run-options.js';

// An ingress-nginx annotation the library does not honour, seen as an operator sees it: a
// Warning Event on the Ingress in `kubectl describe ingress` (the real kubectl against kube-sim),
// written once while the notice stays — not once per render — and listed on /debug/notices.
const root = fileURLToPath(new URL('../../../', import.meta.url));
const NS = 'haptic';
const CONTROLLER = 'k8s.io/ingress-nginx';
const UNKNOWN = 'nginx.ingress.kubernetes.io/no-such-annotation';

const config: KubeObject = {
  apiVersion: 'haproxy-haptic.org/v1alpha1',
  kind: 'HAProxyTemplateConfig',
  metadata: { namespace: NS, name: 'haptic' },
  spec: {
    credentialsSecretRef: { name: 'creds' },
    podSelector: { matchLabels: { app: 'haproxy' } },
    controller: {
      leaderElection: { enabled: false },
      reconcile: { debounce: '20ms', maxDelay: '200ms' },
    },
    watchedResources: {
      ingresses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingresses',
        indexBy: ['metadata.namespace', 'metadata.name'],
      },
      ingressclasses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingressclasses',
        indexBy: ['metadata.name'],
      },
    },
    templatingSettings: { extraContext: { controller_name: CONTROLLER } },
    haproxyConfig: {
      template:
        'global\n{% for i in nginx.served %}# {{ i.metadata.name }}\n{% endfor %}defaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n  timeout server 1s\nfrontend health\n  bind 127.0.0.1:8404\n  http-request return status 200\n',
    },
  },
};

const ingress = (name: string, annotations: Record<string, string>): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: 'apps', name, annotations },
  spec: {
    ingressClassName: 'nginx',
    rules: [
      {
        host: `${name}.example`,
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

describe('render notices as Events (kubectl against kube-sim)', () => {
  let sim: KubeSim;
  let controller: RunningController;
  let dir: string;
  let kubectl: string;

  const k = (...args: string[]): Promise<string> =>
    new Promise((resolve, reject) =>
      execFile(
        kubectl,
        args,
        {
          env: { PATH: process.env.PATH, HOME: dir, KUBECONFIG: sim.kubeconfigPath },
          timeout: 30_000,
        },
        (e, out, err) =>
          e ? reject(new Error(`kubectl ${args.join(' ')}: ${err}`)) : resolve(out),
      ),
    );
  const until = async (what: string, check: () => Promise<boolean>, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const describeIngress = (name: string) => k('describe', 'ingress', '-n', 'apps', name);
  const eventsOf = async (name: string) =>
    (
      await k(
        'get',
        'events',
        '-n',
        'apps',
        '--field-selector',
        `involvedObject.name=${name}`,
        '-o',
        'jsonpath={range .items[*]}{.reason} {.count}{"\\n"}{end}',
      )
    )
      .trim()
      .split('\n')
      .filter((l) => l !== '');

  beforeAll(async () => {
    kubectl = join(
      execFileSync(process.execPath, [join(root, 'scripts/tools.mjs')], {
        encoding: 'utf8',
      }).trim(),
      'kubectl',
    );
    dir = await mkdtemp(join(tmpdir(), 'haptic-notices-'));
    sim = await KubeSim.start({
      kubeconfigPath: join(dir, 'kubeconfig'),
      manifests: [join(root, 'helm/haptic/crds/haproxytemplateconfigs.yaml')],
    });
    await sim.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } },
      {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IngressClass',
        metadata: { name: 'nginx' },
        spec: { controller: CONTROLLER },
      },
      ingress('carries', { [UNKNOWN]: 'x' }),
      config,
    ]);
    controller = await runController(
      resolveRunOptions(
        {
          kubeconfig: sim.kubeconfigPath,
          namespace: NS,
          configName: 'haptic',
          address: '127.0.0.1',
          healthPort: '0',
          metricsPort: '0',
          identity: 'notices-test',
        },
        {},
      ),
    );
  }, 120_000);

  afterAll(async () => {
    await controller?.stop();
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one Warning Event naming the annotation, not one per render, and lists it on /debug/notices', async () => {
    await until('the AnnotationNotHonoured Event', async () =>
      /Warning\s+AnnotationNotHonoured/.test(await describeIngress('carries')),
    );
    const described = await describeIngress('carries');
    process.stdout.write(`--- kubectl describe ingress carries\n${described}\n`);
    expect(described).toContain(`annotation ${UNKNOWN} is unknown, served without it`);
    // Another Ingress makes another render; its own notice's Event shows that render's notices
    // were handled (Events are written in order), and the first one was not written again.
    await sim.apply(ingress('later', { [UNKNOWN]: 'y' }));
    await until('the second Ingress Event', async () =>
      /Warning\s+AnnotationNotHonoured/.test(await describeIngress('later')),
    );
    expect(await eventsOf('carries')).toEqual(['AnnotationNotHonoured 1']);
    const res = await fetch(`http://127.0.0.1:${controller.healthPort}/debug/notices`);
    const body = (await res.json()) as { notices: { object: { name: string }; reason: string }[] };
    expect(body.notices.map((n) => `${n.object.name} ${n.reason}`)).toEqual([
      'carries AnnotationNotHonoured',
      'later AnnotationNotHonoured',
    ]);
  });

  it('writes the Event again when the annotation comes back after it was removed', async () => {
    await sim.apply(ingress('carries', {}));
    await until('the notice gone from /debug/notices', async () => {
      const res = await fetch(`http://127.0.0.1:${controller.healthPort}/debug/notices`);
      const body = (await res.json()) as { notices: { object: { name: string } }[] };
      return !body.notices.some((n) => n.object.name === 'carries');
    });
    await sim.apply(ingress('carries', { [UNKNOWN]: 'x' }));
    await until('the count raised', async () =>
      (await eventsOf('carries')).includes('AnnotationNotHonoured 2'),
    );
    expect(await eventsOf('carries')).toEqual(['AnnotationNotHonoured 2']);
  });
});
