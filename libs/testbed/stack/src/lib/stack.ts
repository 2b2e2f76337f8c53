import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificate, KubeSim, type KubeObject } from '#testbed/kube-sim';
import { StackError } from './stack.errors.js';
import { defaultHapticCommand, NodeSim } from '#testbed/node-sim';
import { chartDir, Helm, setArgs } from './chart.js';
import { waitFor } from './http.js';
import { assembleIngressLibrary } from './library.js';
import { repoRoot } from './paths.js';
import { claimPodBlock, type PodBlock } from './pod-block.js';
import {
  CONTROLLER_LABELS,
  CREDENTIALS,
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
  /**
   * How haptic is installed: `manifests` (default) applies the chart's topology written in
   * topology.ts; `chart` runs `helm install` of helm/haptic with the pinned helm (server-side
   * apply), with the chart's default data plane (HAProxy in its own container, the agent as its
   * sidecar) and two controller replicas; the webhook is on, as by default.
   */
  readonly install?: 'manifests' | 'chart';
  /** More chart values for `install: 'chart'` (over the stack's own). */
  readonly chartValues?: Readonly<Record<string, string | number | boolean>>;
  /** How long to wait for every haptic pod to be ready (default 120 s). */
  readonly readyTimeoutMs?: number;
  readonly log?: (line: string) => void;
  /** The template library to install (an assembled HAProxyTemplateConfig); default the Ingress library. */
  readonly library?: KubeObject;
  /** More manifest files kube-sim loads at start (e.g. the Gateway API CRDs). */
  readonly kubeSimManifests?: readonly string[];
  /**
   * The HAProxy binary every haptic process of the stack uses (the agents' HAProxy, the
   * controllers' validation): HAPTIC_HAPROXY_BIN in their environment. Default: the project's 3.0.
   */
  readonly haproxyBin?: string;
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
    /** helm against this stack's kube-sim (its own caches under the work folder). */
    readonly helm: Helm,
    /** The values the chart was installed with (`install: 'chart'`), else undefined. */
    readonly chartValues: Readonly<Record<string, string | number | boolean>> | undefined,
    private readonly block: PodBlock,
  ) {}

  /** The helm release of `install: 'chart'` (its fullname is the release name: it holds "haptic"). */
  static readonly RELEASE = 'haptic';

  /** Starts everything and waits until every haptic pod is ready. */
  static async start(options: StackOptions = {}): Promise<Stack> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'haptic-stack-')));
    const log = options.log ?? (() => undefined);
    const chart = options.install === 'chart';
    if (chart && options.controllerEnv)
      throw new StackError('controllerEnv is not a chart value: use install: manifests');
    const kubeSim = await KubeSim.start({
      port: options.kubeSimPort ?? 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      // The chart brings its own CRDs (crds/), as helm installs them.
      manifests: [
        ...(chart ? [] : [join(repoRoot(), 'test/fixtures/crds/haproxytemplateconfigs.yaml')]),
        ...(options.kubeSimManifests ?? []),
      ],
    });
    let nodeSim: NodeSim | undefined;
    let block: PodBlock | undefined;
    try {
      block = claimPodBlock();
      nodeSim = await NodeSim.start({
        kubeconfigPath: kubeSim.kubeconfigPath,
        rootDir: join(dir, 'pods'),
        addressRange: { first: block.first, last: block.last },
        nodeIP: block.nodeIP,
        maxShutdownGraceSeconds: 5,
        ...(options.haproxyBin ? { hapticCommand: hapticWithHaproxy(options.haproxyBin) } : {}),
        ...(process.env.HAPTIC_STACK_KEEP ? { keepPodFolders: true } : {}),
        ...(options.fast ? { probePeriodScale: 0.2 } : {}),
        log: (l) => log(`node-sim: ${l}`),
      });
      const topology: Topology = {
        namespace: 'haptic',
        haproxyReplicas: options.haproxyReplicas ?? 2,
        controllerReplicas: options.controllerReplicas ?? (chart ? 2 : 1),
        httpPort: options.httpPort ?? (isRoot() ? 80 : 8080),
        httpsPort: options.httpsPort ?? (isRoot() ? 443 : 8443),
        statsPort: 8404,
        dataplanePort: 5555,
        healthPort: chart ? 8080 : 8081,
        metricsPort: 9090,
        library: options.library ?? (await assembleIngressLibrary()),
        defaultCertificate: 'haptic/stack-default-tls',
        fast: options.fast ?? false,
        ...(process.env.HAPTIC_STACK_LOG_LEVEL
          ? { controllerLogLevel: process.env.HAPTIC_STACK_LOG_LEVEL }
          : {}),
        ...(options.controllerEnv ? { controllerEnv: options.controllerEnv } : {}),
        ...(options.leaderElection ? { leaderElection: options.leaderElection } : {}),
      };
      const helm = new Helm(kubeSim.kubeconfigPath, join(dir, 'helm'));
      const values = chart ? { ...chartValues(topology), ...options.chartValues } : undefined;
      const stack = new Stack(
        kubeSim,
        nodeSim,
        dir,
        options.dir === undefined,
        topology,
        helm,
        values,
        block,
      );
      const defaultTls = await generateCertificate({
        commonName: 'haptic default',
        dnsNames: ['haptic.invalid'],
      });
      await ensureNode(kubeSim);
      if (options.objects) await kubeSim.apply(options.objects);
      const manifests = hapticManifests(topology, defaultTls);
      if (values === undefined) await kubeSim.apply(manifests);
      else {
        // The namespace and the default certificate first (the chart names the certificate).
        await kubeSim.apply(manifests.filter((m) => m.kind === 'Namespace' || isTls(m)));
        await helm.ok([
          'install',
          Stack.RELEASE,
          chartDir(),
          '-n',
          topology.namespace,
          ...setArgs(values),
        ]);
      }
      await stack.waitForPods(options.readyTimeoutMs);
      return stack;
    } catch (e) {
      await nodeSim?.stop();
      await kubeSim.stop();
      block?.release();
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

  /**
   * Where a NodePort Service's port is reached from outside, as on a real cluster: the Node's
   * InternalIP and the port's nodePort (node-sim's kube-proxy listens there).
   */
  async nodePortAddress(
    namespace: string,
    service: string,
    portName: string,
  ): Promise<{ address: string; port: number }> {
    const svc = await this.get<{ spec: { ports: { name?: string; nodePort?: number }[] } }>(
      `/api/v1/namespaces/${namespace}/services/${service}`,
    );
    const port = svc?.spec.ports.find((p) => p.name === portName)?.nodePort;
    const nodes = await this.get<{
      items: { status?: { addresses?: { type: string; address: string }[] } }[];
    }>('/api/v1/nodes');
    const address = nodes?.items[0]?.status?.addresses?.find(
      (a) => a.type === 'InternalIP',
    )?.address;
    if (port === undefined || address === undefined)
      throw new StackError(`${namespace}/${service} has no node port ${portName} on a Node`);
    return { address, port };
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

  /**
   * Stops node-sim (every pod and process it started), then kube-sim; removes the work folder it
   * made, unless HAPTIC_STACK_KEEP is set (then the pods' logs stay there and the folder is named
   * on stderr, for a failure to be read afterwards).
   */
  async stop(): Promise<void> {
    await this.nodeSim.stop();
    await this.kubeSim.stop();
    this.block.release();
    if (!this.ownsDir) return;
    if (process.env.HAPTIC_STACK_KEEP) process.stderr.write(`stack: kept ${this.dir}\n`);
    else await rm(this.dir, { recursive: true, force: true });
  }
}

const isTls = (m: KubeObject): boolean => m['type'] === 'kubernetes.io/tls';

/** The chart values that install the stack's topology (agent sidecar, its ports and timings). */
/** `haptic` started with HAPTIC_HAPROXY_BIN set (a pod's container starts from a near-empty environment). */
function hapticWithHaproxy(bin: string): string[] {
  return ['/usr/bin/env', `HAPTIC_HAPROXY_BIN=${bin}`, ...defaultHapticCommand()];
}

function chartValues(t: Topology): Record<string, string | number | boolean> {
  return {
    'haproxy.replicaCount': t.haproxyReplicas,
    'controller.replicaCount': t.controllerReplicas,
    'haproxy.ports.http': t.httpPort,
    'haproxy.ports.https': t.httpsPort,
    'haproxy.ports.stats': t.statsPort,
    'haproxy.ports.dataplane': t.dataplanePort,
    'controller.ports.health': t.healthPort,
    'controller.ports.metrics': t.metricsPort,
    'credentials.password': CREDENTIALS.password,
    'controller.config.extraContext.default_certificate': t.defaultCertificate,
    'ingressClass.default': true,
    ...(t.fast
      ? {
          'controller.config.reconcile.debounce': '20ms',
          'controller.config.reconcile.maxDelay': '200ms',
          'controller.config.dataplane.minDeploymentInterval': '50ms',
        }
      : {}),
  };
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
