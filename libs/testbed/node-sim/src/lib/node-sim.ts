import { randomInt, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { AddressPool } from './address-pool.js';
import { ClusterWatch } from './cluster.js';
import type { BackoffPolicy } from './container-runtime.js';
import { Controllers } from './controllers.js';
import { DEFAULT_IMAGE_TABLE, type ImageRule } from './image-table.js';
import { Kubelet, type RunningPod } from './kubelet.js';
import { NodeRegistration } from './node-object.js';
import { planProxy } from './proxy-plan.js';
import { ServiceProxy } from './service-proxy.js';
import { NodeSimConfigError } from './node-sim.errors.js';
import { killPid, markedProcesses } from './process-group.js';

/** How node-sim is started. Every field but the kubeconfig has a default. */
export interface NodeSimOptions {
  /** Path of the kubeconfig to watch with; pods get a copy with their namespace as default. */
  readonly kubeconfigPath: string;
  /** The node name pods are bound to (default `node-sim`). */
  readonly nodeName?: string;
  /**
   * The node's InternalIP: node ports and LoadBalancer ports are served there (default: a random
   * loopback address in 127.0.20.1 – 127.0.23.254, so node-sims side by side do not collide).
   */
  readonly nodeIP?: string;
  /** Pod address range, inclusive (default 127.0.10.1 – 127.0.19.254). */
  readonly addressRange?: { readonly first: string; readonly last: string };
  /** Where pod folders go (default: a fresh temp folder, removed on stop). */
  readonly rootDir?: string;
  /** The `haptic` command (default: this Node binary and haptic's bin/haptic.js). */
  readonly hapticCommand?: readonly string[];
  /** The HAProxy binary HAProxy containers run (default: haptic's one switch, #haproxy-bin). */
  readonly haproxyBin?: string;
  /** Rules tried before the default image table. */
  readonly extraImageRules?: readonly ImageRule[];
  /** Container restart back-off (default 1 s doubling to 30 s, reset after 60 s of running). */
  readonly backoff?: BackoffPolicy;
  /** Multiplies probe periods and delays (default 1; below 1 makes probes faster than declared). */
  readonly probePeriodScale?: number;
  /** Upper bound on grace periods when node-sim itself stops (default 10 s). */
  readonly maxShutdownGraceSeconds?: number;
  /**
   * Keep each stopped pod's folder (its container logs, the agent's HAProxy output) under
   * `<rootDir>/stopped/<namespace>_<name>` instead of removing it; for reading a failure afterwards.
   */
  readonly keepPodFolders?: boolean;
  readonly log?: (line: string) => void;
}

/** A loopback address for the node, 127.0.20.1 – 127.0.23.254 (never .0 or .255). */
export function defaultNodeIP(): string {
  return `127.0.${20 + randomInt(4)}.${1 + randomInt(254)}`;
}

/** Environment variable set on every process node-sim starts: its instance id (a stray sweep finds them by it). */
export const NODE_SIM_MARKER_ENV = 'HAPTIC_NODE_SIM';

/** haptic's bin/haptic.js, found from both the source and the dist layout. */
export function defaultHapticCommand(): string[] {
  for (const rel of ['../../../../../bin/haptic.js', '../../../../../../bin/haptic.js']) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(path)) return [process.execPath, path];
  }
  throw new NodeSimConfigError('bin/haptic.js not found; pass hapticCommand');
}

/**
 * The HAProxy binary for HAProxy containers; with none on this machine, the bare name `haproxy`,
 * so that node-sim still runs every other pod and such a container fails on its own (as a
 * container whose image lacks the binary would).
 */
function haproxyBinOrName(flag: string | undefined): string {
  try {
    return resolveHaproxyBinary(flag);
  } catch {
    return 'haproxy';
  }
}

/**
 * node-sim: the kubelet and the controllers of a one-node cluster, over any API server reachable
 * by a kubeconfig (kube-sim in tests and the demo). Level-based: every watch event marks the world
 * dirty and one reconcile pass brings Deployments, ReplicaSets, pods and EndpointSlices in line.
 */
export class NodeSim {
  private readonly log: (line: string) => void;
  private dirty = false;
  private passing: Promise<void> | undefined;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private resync: NodeJS.Timeout | undefined;

  private readonly proxy: ServiceProxy;
  private registration: NodeRegistration | undefined;

  private constructor(
    /** Marks every process this node-sim starts (environment {@link NODE_SIM_MARKER_ENV}). */
    readonly instanceId: string,
    /** The Node's InternalIP, where node ports are served. */
    readonly nodeIP: string,
    readonly nodeName: string,
    private readonly watch: ClusterWatch,
    private readonly kubelet: Kubelet,
    private readonly controllers: Controllers,
    private readonly rootDir: string,
    private readonly ownsRoot: boolean,
    private readonly options: NodeSimOptions,
    log: (line: string) => void,
  ) {
    this.log = log;
    this.proxy = new ServiceProxy(log);
  }

  /** Connects, waits for the initial lists, and starts reconciling. */
  static async start(options: NodeSimOptions): Promise<NodeSim> {
    if (!existsSync(options.kubeconfigPath))
      throw new NodeSimConfigError(`kubeconfig ${options.kubeconfigPath} not found`);
    const kc = new KubeConfig();
    kc.loadFromFile(options.kubeconfigPath);
    const log = options.log ?? ((line: string) => process.stderr.write(`node-sim: ${line}\n`));
    const pool = new AddressPool(options.addressRange?.first, options.addressRange?.last);
    const rootDir = options.rootDir ?? (await mkdtemp(join(tmpdir(), 'hns-')));
    const nodeName = options.nodeName ?? 'node-sim';
    const nodeIP = options.nodeIP ?? defaultNodeIP();
    if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(nodeIP))
      throw new NodeSimConfigError(`node IP ${nodeIP} must be a loopback address (127.0.0.0/8)`);
    const self: { sim?: NodeSim } = {};
    const markDirty = (): void => self.sim?.markDirty();
    const watch = new ClusterWatch(kc, markDirty, log);
    const instanceId = randomUUID();
    const kubelet = new Kubelet(
      watch,
      pool,
      rootDir,
      {
        hostIP: nodeIP,
        nodeName,
        hapticCommand: options.hapticCommand ?? defaultHapticCommand(),
        haproxyBin: haproxyBinOrName(options.haproxyBin),
        imageTable: [...(options.extraImageRules ?? []), ...DEFAULT_IMAGE_TABLE],
        lookup: {
          secret: (ns, name) => watch.secrets.get(name, ns),
          configMap: (ns, name) => watch.configMaps.get(name, ns),
        },
        kubeconfigFor: (ns) => kubeconfigFor(kc, ns),
        token: kc.getCurrentUser()?.token ?? '',
        backoff: options.backoff ?? { initialMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 },
        probePeriodScale: options.probePeriodScale ?? 1,
        marker: { [NODE_SIM_MARKER_ENV]: instanceId },
        ...(options.keepPodFolders ? { keptDir: join(rootDir, 'stopped') } : {}),
      },
      markDirty,
      log,
    );
    const controllers = new Controllers(watch, nodeName, log, () => {
      setTimeout(markDirty, 250).unref();
    });
    const sim = new NodeSim(
      instanceId,
      nodeIP,
      nodeName,
      watch,
      kubelet,
      controllers,
      rootDir,
      options.rootDir === undefined,
      options,
      log,
    );
    self.sim = sim;
    await watch.start();
    sim.registration = new NodeRegistration(watch.core, nodeName, nodeIP, log);
    await sim.registration.register();
    sim.markDirty();
    // A periodic resync, like the kubelet's: retries that no watch event would trigger.
    sim.resync = setInterval(() => sim.markDirty(), 5000);
    sim.resync.unref();
    return sim;
  }

  /** Asks for a reconcile pass soon (coalesced). */
  markDirty(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.passing !== undefined || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.passing = this.pass().finally(() => {
        this.passing = undefined;
        if (this.dirty) this.markDirty();
      });
    }, 10);
  }

  private async pass(): Promise<void> {
    while (this.dirty && !this.stopped) {
      this.dirty = false;
      try {
        await this.controllers.collectGarbage();
        await this.controllers.deployments();
        await this.controllers.replicaSets();
        await this.kubelet.sync();
        await this.controllers.endpointSlices(this.kubelet.endpoints());
        await this.controllers.loadBalancers(this.nodeIP);
        await this.proxy.sync(
          planProxy(this.watch.services.list(), this.watch.slices.list(), this.nodeIP),
        );
      } catch (e) {
        this.log(`reconcile failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
        setTimeout(() => this.markDirty(), 500).unref();
      }
    }
  }

  /** Addresses node-sim's proxy listens on now (`ip:port`). */
  proxyListening(): string[] {
    return this.proxy.listening();
  }

  /** The pods running here, with addresses and process ids. */
  pods(): RunningPod[] {
    return this.kubelet.running();
  }

  /** Stops watching, stops every pod process (SIGTERM, then SIGKILL), removes its temp folder. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.resync);
    await this.watch.stop();
    await this.passing?.catch(() => undefined);
    await this.kubelet.stopAll(this.options.maxShutdownGraceSeconds ?? 10);
    await this.proxy.stop();
    await this.registration?.unregister();
    // Anything that left its process group (a daemonised child) still carries the marker.
    for (const pid of markedProcesses(NODE_SIM_MARKER_ENV, this.instanceId)) {
      this.log(`killing stray process ${pid}`);
      killPid(pid);
    }
    if (this.ownsRoot) await rm(this.rootDir, { recursive: true, force: true });
  }
}

/** The kubeconfig handed to a pod: node-sim's own, with the pod's namespace as the default. */
function kubeconfigFor(kc: KubeConfig, namespace: string): string {
  const copy = new KubeConfig();
  copy.loadFromString(kc.exportConfig());
  const current = copy.getCurrentContext();
  const contexts = copy.getContexts().map((c) => (c.name === current ? { ...c, namespace } : c));
  copy.loadFromOptions({
    clusters: copy.getClusters(),
    users: copy.getUsers(),
    contexts,
    currentContext: current,
  });
  return copy.exportConfig();
}
