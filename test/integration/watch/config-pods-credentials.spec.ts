import type { ParseResult } from '#core';
import { KubeSim, type KubeObject } from '#testbed/kube-sim';
import { ResourceIndex } from '#index';
import { KubeConfig } from '@kubernetes/client-node';
import type { HaproxyPod } from '#events';
import { putStatus } from '#testbed/testing';
import { ClientNodeKubeApi, WatchManager, type CredentialsState } from '#watch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configWith, connect, converge, CRD, FAST } from './harness.js';

function haptic(podLabel: string, template: string): KubeObject {
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { namespace: 'haptic', name: 'haptic' },
    spec: {
      credentialsSecretRef: { name: 'creds' },
      podSelector: { matchLabels: { app: podLabel } },
      haproxyConfig: { template },
      watchedResources: {
        ingresses: {
          apiVersion: 'networking.k8s.io/v1',
          resources: 'ingresses',
          indexBy: ['metadata.namespace', 'metadata.name'],
          fieldSelector: 'spec.ingressClassName=haproxy,metadata.name!=ignored',
        },
      },
    },
  };
}

async function pod(
  sim: KubeSim,
  ns: string,
  name: string,
  app: string,
  ready: boolean,
  ip: string,
): Promise<void> {
  await sim.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, labels: { app } },
    spec: {
      containers: [
        { name: 'haproxy', image: 'haproxy' },
        { name: 'dataplane', image: 'haptic', ports: [{ containerPort: 5555 }] },
      ],
    },
  });
  await putStatus(`${sim.url}/api/v1/namespaces/${ns}/pods/${name}`, {
    phase: 'Running',
    podIP: ip,
    containerStatuses: [
      { name: 'haproxy', ready: false },
      { name: 'dataplane', ready },
    ],
  });
}

describe('config, credentials, HAProxy pods and field selectors against kube-sim', () => {
  let sim: KubeSim;
  beforeAll(async () => {
    sim = await KubeSim.start({ port: 0, bookmarkIntervalMs: 300 });
  });
  afterAll(async () => {
    await sim.stop();
  });

  it('follows the config resource live and publishes pods and credentials', async () => {
    for (const ns of ['haptic', 'edge-1', 'edge-2', 'apps'])
      await sim.apply({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
    await sim.apply(CRD);
    await sim.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'haptic', name: 'creds' },
      data: { dataplane_username: btoa('admin'), dataplane_password: btoa('one') },
    });
    await pod(sim, 'edge-1', 'lb-1', 'haproxy', true, '127.0.0.11');
    await pod(sim, 'edge-2', 'lb-2', 'haproxy', false, '127.0.0.12');
    await pod(sim, 'edge-2', 'other', 'web', true, '127.0.0.13');
    for (const [name, cls] of [
      ['web', 'haproxy'],
      ['nginx-one', 'nginx'],
      ['ignored', 'haproxy'],
    ]) {
      await sim.apply({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { namespace: 'apps', name },
        spec: {
          ingressClassName: cls,
          defaultBackend: { service: { name: 'web', port: { number: 80 } } },
        },
      } as unknown as KubeObject);
    }
    await sim.apply(haptic('haproxy', 'global'));

    const kc = new KubeConfig();
    kc.loadFromFile(sim.kubeconfigPath);
    const index = new ResourceIndex();
    const configs: ParseResult[] = [];
    let pods: readonly HaproxyPod[] = [];
    let creds: CredentialsState | undefined;
    const restarts: string[][] = [];
    const manager: WatchManager = new WatchManager(
      new ClientNodeKubeApi(kc),
      index,
      {
        config: (result) => {
          if (!result) return;
          configs.push(result);
          if (result.ok)
            void manager
              .apply(result.config.spec, 'haptic')
              .then((r) => restarts.push(r.restarted));
        },
        pods: (p) => (pods = p),
        credentials: (c) => (creds = c),
      },
      FAST,
    );
    try {
      manager.watchConfig({ namespace: 'haptic', name: 'haptic' });
      expect(
        await converge(() =>
          pods.length === 1 && creds && index.isSynced() ? undefined : 'waiting',
        ),
      ).toBeUndefined();
      expect(pods).toEqual([
        {
          namespace: 'edge-1',
          name: 'lb-1',
          uid: expect.any(String),
          address: '127.0.0.11',
          dataplanePort: 5555,
          container: 'dataplane',
        },
      ]);
      expect(creds).toMatchObject({
        ok: true,
        credentials: { username: 'admin', password: 'one' },
      });
      // spec.ingressClassName is applied client-side (kube-sim, like a real server, refuses it with 400).
      expect((await index.snapshot()).list('ingresses').map((o) => o.metadata.name)).toEqual([
        'web',
      ]);

      await pod(sim, 'edge-2', 'lb-2', 'haproxy', true, '127.0.0.12');
      await sim.apply({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { namespace: 'haptic', name: 'creds' },
        data: { dataplane_username: btoa('admin'), dataplane_password: btoa('two') },
      });
      expect(
        await converge(() =>
          pods.length === 2 && creds?.ok && creds.credentials.password === 'two'
            ? undefined
            : 'waiting',
        ),
      ).toBeUndefined();

      // A template-only change restarts no watch; a new podSelector only the pod watch.
      await sim.apply(haptic('haproxy', 'global\n  daemon'));
      await sim.apply(haptic('web', 'global\n  daemon'));
      expect(
        await converge(() => (restarts.length === 3 && pods.length === 1 ? undefined : 'waiting')),
      ).toBeUndefined();
      expect(restarts).toEqual([['ingresses'], [], []]);
      expect(pods.map((p) => p.name)).toEqual(['other']);

      // An invalid config is reported, and the watches stay as they are.
      await sim.apply({
        ...haptic('web', 'global'),
        spec: { podSelector: {} },
      });
      expect(
        await converge(() => (configs.at(-1)?.ok === false ? undefined : 'waiting')),
      ).toBeUndefined();
      expect(restarts).toHaveLength(3);
    } finally {
      await manager.stop();
    }
  });

  it('restarts a silent watch stream and stays in sync', async () => {
    const quiet = await KubeSim.start({ port: 0, bookmarkIntervalMs: 0 });
    const { index, manager } = connect(quiet);
    try {
      await manager.apply(
        configWith({
          cms: { apiVersion: 'v1', resources: 'configmaps', indexBy: ['metadata.namespace'] },
        }).spec,
        'default',
      );
      // FAST.idleTimeoutMs is 1.5 s: with no events and no bookmarks the stream is dropped and resumed.
      expect(
        await converge(() => (manager.status()[0]!.restarts > 0 ? undefined : 'waiting'), 200),
      ).toBeUndefined();
      await quiet.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'late' },
      });
      expect(
        await converge(async () =>
          (await index.snapshot()).list('cms').some((o) => o.metadata.name === 'late')
            ? undefined
            : 'waiting',
        ),
      ).toBeUndefined();
    } finally {
      await manager.stop();
      await quiet.stop();
    }
  });
});
