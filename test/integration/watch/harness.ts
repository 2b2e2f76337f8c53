import { KubeConfig } from '@kubernetes/client-node';
import { parseTemplateConfig, type TemplateConfig } from '#core';
import { ResourceIndex } from '#index';
import type { KubeObject, KubeSim } from '#testbed/kube-sim';
import { ClientNodeKubeApi, WatchManager, type ReflectorTiming } from '#watch';

/** Short timings so fault recovery stays fast in tests. */
export const FAST: ReflectorTiming = {
  watchTimeoutSeconds: 3,
  idleTimeoutMs: 1500,
  backoffInitialMs: 5,
  backoffMaxMs: 50,
  unlistableRetryMs: 100,
};

/** A WatchManager feeding a ResourceIndex, talking to kube-sim over HTTP through client-node. */
export function connect(
  sim: KubeSim,
  requestTimeoutMs = 2000,
): { index: ResourceIndex; manager: WatchManager } {
  const kc = new KubeConfig();
  kc.loadFromFile(sim.kubeconfigPath);
  const api = new ClientNodeKubeApi(kc, { requestTimeoutMs, pageSize: 100 });
  const ref: { manager?: WatchManager } = {};
  const index = new ResourceIndex({
    fetch: { fetchObject: (r, ns, n) => ref.manager!.fetchObject(r, ns, n) },
    cache: { ttlMs: 60_000, maxEntries: 1000 },
  });
  const manager = new WatchManager(api, index, {}, FAST);
  ref.manager = manager;
  return { index, manager };
}

/** A config watching what `watched` names (plus the mandatory fields). */
export function configWith(watched: Record<string, unknown>): TemplateConfig {
  const parsed = parseTemplateConfig({
    credentialsSecretRef: { name: 'creds' },
    podSelector: { matchLabels: { app: 'haproxy' } },
    haproxyConfig: { template: 'global' },
    watchedResources: watched,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.config;
}

/** Sends one request to kube-sim; throws on an unexpected status. */
export async function call(
  sim: KubeSim,
  method: string,
  path: string,
  body?: unknown,
  ok: readonly number[] = [200, 201],
): Promise<unknown> {
  const res = await fetch(sim.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!ok.includes(res.status)) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/** Polls `check` until it returns undefined (converged) or the bound is hit; returns the last difference. */
export async function converge(
  check: () => Promise<string | undefined> | string | undefined,
  tries = 300,
): Promise<string | undefined> {
  let diff: string | undefined;
  for (let i = 0; i < tries; i++) {
    diff = await check();
    if (diff === undefined) return undefined;
    await new Promise((r) => setTimeout(r, 20));
  }
  return diff;
}

/** The HAProxyTemplateConfig CRD as the watch tests install it (spec kept as given). */
export const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'haproxytemplateconfigs.haproxy-haptic.org' },
  spec: {
    group: 'haproxy-haptic.org',
    scope: 'Namespaced',
    names: {
      plural: 'haproxytemplateconfigs',
      singular: 'haproxytemplateconfig',
      kind: 'HAProxyTemplateConfig',
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
} as unknown as KubeObject;
