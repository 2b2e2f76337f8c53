/* global fetch, setTimeout */
// Process memory of watch + index holding N Ingresses listed from a kube-sim in another process:
// `npm run build && node --expose-gc scripts/watch-memory.mjs 10000 full|on-demand`.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { parseTemplateConfig } from '#core';
import { ResourceIndex } from '#index';
import { ClientNodeKubeApi, WatchManager } from '#watch';
import { ingress } from './index-memory.mjs';

const N = Number(process.argv[2] ?? 10_000);
const store = process.argv[3] ?? 'full';

const sim = spawn(process.execPath, ['bin/haptic.js', 'kube-sim', '--port', '0', '-o', 'json'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = JSON.parse(
  await new Promise((resolve) => createInterface(sim.stdout).once('line', resolve)),
);

async function post(i) {
  const body = ingress(i);
  delete body.metadata.resourceVersion;
  delete body.metadata.uid;
  delete body.status;
  body.metadata.managedFields = [
    { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } },
  ];
  const ns = body.metadata.namespace;
  if (i < 50) {
    await fetch(`${info.url}/api/v1/namespaces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
    });
  }
  const res = await fetch(`${info.url}/apis/networking.k8s.io/v1/namespaces/${ns}/ingresses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`create ${i}: ${res.status} ${await res.text()}`);
}

function measure() {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, rss: m.rss };
}

try {
  for (let i = 0; i < 50; i++) await post(i);
  const workers = Array.from({ length: 50 }, async (_, w) => {
    for (let i = 50 + w; i < N; i += 50) await post(i);
  });
  await Promise.all(workers);
  const parsed = parseTemplateConfig({
    credentialsSecretRef: { name: 'creds' },
    podSelector: { matchLabels: { app: 'haproxy' } },
    haproxyConfig: { template: 'global' },
    watchedResources: {
      ingresses: {
        apiVersion: 'networking.k8s.io/v1',
        resources: 'ingresses',
        indexBy: ['metadata.namespace', 'metadata.name'],
        store,
      },
    },
  });
  const kc = new KubeConfig();
  kc.loadFromFile(info.kubeconfig);
  const before = measure();
  const index = new ResourceIndex();
  const manager = new WatchManager(new ClientNodeKubeApi(kc), index);
  const t0 = Date.now();
  await manager.apply(parsed.config.spec, 'default');
  while (!index.isSynced()) await new Promise((r) => setTimeout(r, 10));
  const listMs = Date.now() - t0;
  if (store === 'full') (await index.snapshot()).lookup('ingresses', ['team-1']);
  const after = measure();
  console.log(
    `${store}: ${JSON.stringify(index.counts())} listed+indexed in ${listMs} ms; ` +
      // RSS before is inflated by creating the objects, so only heap is compared.
      `heap +${((after.heap - before.heap) / 1048576).toFixed(1)} MiB ` +
      `(process heap ${(after.heap / 1048576).toFixed(1)} MiB, rss ${(after.rss / 1048576).toFixed(1)} MiB)`,
  );
  await manager.stop();
} finally {
  sim.kill('SIGTERM');
}
