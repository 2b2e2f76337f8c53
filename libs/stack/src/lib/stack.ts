import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificate, KubeSim, type KubeObject } from '#kube-sim';
import { NodeSim } from '#node-sim';
import { waitFor } from './http.js';
import { assembleIngressLibrary } from './library.js';
import { randomPodRange, repoRoot } from './paths.js';
import {
  CONTROLLER_LABELS,
  hapticManifests,
  LOADBALANCER_LABELS,
  type Topology,
} from './topology.js';

/** How the stack is brought up. Every field has a default. */
export interface StackOptions {
  /** Work folder (kubeconfig, pod folders); default a fresh temporary folder, removed on stop. */
  readonly dir?: string;
  /** HAProxy ports on each HAProxy pod's address (default 8080/8443, or 80/443 when run as root). */
  readonly httpPort?: number;
  readonly httpsPort?: number;
  readonly haproxyReplicas?: number;
  readonly controllerReplicas?: number;
  /** kube-sim's port on 127.0.0.1 (default 0: any free port). */
  readonly kubeSimPort?: number;
  /** Short timings (reconcile debounce, deployment interval, probe periods) for tests. */
  readonly fast?: boolean;
  /** Extra environment of the controller container (e.g. NODE_OPTIONS, HAPTIC_HAPROXY_BIN). */
  readonly controllerEnv?: Readonly<Record<string, string>>;
  /** spec.controller.leaderElection of the config (e.g. longer leases for a bench). */
  readonly leaderElection?: Readonly<Record<string, string | boolean>>;
  /** Objects applied before haptic is installed (a cluster the controller finds at start). */
  readonly objects?: readonly KubeObject[];
  /** How long to wait for every haptic pod to be ready (default 120 s). */
  readonly readyTimeoutMs?: number;
  readonly log?: (line: string) => void;
  /** The template library to install (an assembled HAProxyTemplateConfig); default the Ingress library. */
  readonly library?: KubeObject;
  /** More manifest files kube-sim loads at start (e.g. the Gateway API CRDs). */
  readonly kubeSimManifests?: readonly string[];
}

/** A running pod: name and its own loopback address. */
export interface PodAddress {
  readonly name: string;
  readonly ip: string;
}

interface PodObject {
  metadata: { name: string; deletionTimestamp?: string };
  status?: { podIP?: string; conditions?: { type: string; status: string }[] };
}

const isRoot = (): boolean => process.getuid?.() === 0;
const selector = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

/**
 * kube-sim (API server), node-sim (kubelet and controllers) and haptic installed in the chart's
 * topology: HAProxy pods with the agent and a real HAProxy, and `haptic run` controller pods.
 */
export class Stack {
  private constructor(
    readonly kubeSim: KubeSim,
    readonly nodeSim: NodeSim,
    readonly dir: string,
    private readonly ownsDir: boolean,
    readonly topology: Topology,
  ) {}

  /** Starts everything and waits until every haptic pod is ready. */
  static async start(options: StackOptions = {}): Promise<Stack> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'haptic-stack-')));
    const log = options.log ?? (() => undefined);
    const kubeSim = await KubeSim.start({
      port: options.kubeSimPort ?? 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      manifests: [
        join(repoRoot(), 'test/fixtures/crds/haproxytemplateconfigs.yaml'),
        ...(options.kubeSimManifests ?? []),
      ],
    });
    let nodeSim: NodeSim | undefined;
    try {
      nodeSim = await NodeSim.start({
        kubeconfigPath: kubeSim.kubeconfigPath,
        rootDir: join(dir, 'pods'),
        addressRange: randomPodRange(),
        maxShutdownGraceSeconds: 5,
        ...(options.fast ? { probePeriodScale: 0.2 } : {}),
        log: (l) => log(`node-sim: ${l}`),
      });
      const topology: Topology = {
        namespace: 'haptic',
        haproxyReplicas: options.haproxyReplicas ?? 2,
        controllerReplicas: options.controllerReplicas ?? 1,
        httpPort: options.httpPort ?? (isRoot() ? 80 : 8080),
        httpsPort: options.httpsPort ?? (isRoot() ? 443 : 8443),
        statsPort: 8404,
        dataplanePort: 5555,
        healthPort: 8081,
        metricsPort: 9090,
        library: options.library ?? (await assembleIngressLibrary()),
        defaultCertificate: 'haptic/haptic-default-tls',
        fast: options.fast ?? false,
        ...(options.controllerEnv ? { controllerEnv: options.controllerEnv } : {}),
        ...(options.leaderElection ? { leaderElection: options.leaderElection } : {}),
      };
      const stack = new Stack(kubeSim, nodeSim, dir, options.dir === undefined, topology);
      const defaultTls = await generateCertificate({
        commonName: 'haptic default',
        dnsNames: ['haptic.invalid'],
      });
      await ensureNode(kubeSim);
      if (options.objects) await kubeSim.apply(options.objects);
      await kubeSim.apply(hapticManifests(topology, defaultTls));
      await stack.waitForPods(options.readyTimeoutMs);
      return stack;
    } catch (e) {
      await nodeSim?.stop();
      await kubeSim.stop();
      if (options.dir === undefined) await rm(dir, { recursive: true, force: true });
      throw e;
    }
  }

  get kubeconfigPath(): string {
    return this.kubeSim.kubeconfigPath;
  }

  /** Creates or replaces objects. */
  async apply(objects: KubeObject | readonly KubeObject[]): Promise<KubeObject[]> {
    return this.kubeSim.apply(objects);
  }

  /** GET an API path (list or object) as JSON; undefined on 404. */
  async get<T = unknown>(path: string): Promise<T | undefined> {
    const res = await fetch(this.kubeSim.url + path);
    if (res.status === 404) return undefined;
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  /** DELETE an API path (404 is fine). */
  async delete(path: string): Promise<void> {
    const res = await fetch(this.kubeSim.url + path, { method: 'DELETE' });
    if (!res.ok && res.status !== 404)
      throw new Error(`DELETE ${path}: ${res.status} ${await res.text()}`);
  }

  /** Ready pods matching labels in a namespace, with their addresses (terminating pods left out). */
  async readyPods(namespace: string, labels: Record<string, string>): Promise<PodAddress[]> {
    const list = await this.get<{ items: PodObject[] }>(
      `/api/v1/namespaces/${namespace}/pods?labelSelector=${encodeURIComponent(selector(labels))}`,
    );
    return (list?.items ?? [])
      .filter(
        (p) =>
          !p.metadata.deletionTimestamp &&
          p.status?.podIP &&
          p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
      )
      .map((p) => ({ name: p.metadata.name, ip: p.status!.podIP! }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** The ready HAProxy pods. */
  haproxyPods(): Promise<PodAddress[]> {
    return this.readyPods(this.topology.namespace, LOADBALANCER_LABELS);
  }

  /** The ready controller pods. */
  controllerPods(): Promise<PodAddress[]> {
    return this.readyPods(this.topology.namespace, CONTROLLER_LABELS);
  }

  /** Waits until every HAProxy and controller replica is ready. */
  async waitForPods(timeoutMs = 120_000): Promise<void> {
    const t = this.topology;
    await waitFor(
      `${t.haproxyReplicas} HAProxy and ${t.controllerReplicas} controller pods to be ready`,
      async () =>
        (await this.haproxyPods()).length === t.haproxyReplicas &&
        (await this.controllerPods()).length === t.controllerReplicas
          ? true
          : undefined,
      timeoutMs,
      200,
    );
  }

  /** Stops node-sim (every pod and process it started), then kube-sim; removes the work folder it made. */
  async stop(): Promise<void> {
    await this.nodeSim.stop();
    await this.kubeSim.stop();
    if (this.ownsDir) await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A Node for the NodePort Service's address in Ingress status (127.0.0.1, where node-sim's
 * processes listen), unless one is registered already.
 */
async function ensureNode(kubeSim: KubeSim): Promise<void> {
  if (kubeSim.list('v1', 'Node').length > 0) return;
  const name = 'haptic-stack-node';
  await kubeSim.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
  const status = { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] };
  const res = await fetch(`${kubeSim.url}/api/v1/nodes/${name}/status`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ status }),
  });
  if (!res.ok) throw new Error(`Node ${name} status: ${res.status} ${await res.text()}`);
}
