import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  AppsV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  Watch,
  type V1EndpointSlice,
} from '@kubernetes/client-node';
import { KubeSim } from '#testbed/kube-sim';
import { claimPodBlock, type PodBlock } from '#testbed/stack';
import { markedProcesses, NODE_SIM_MARKER_ENV } from '#testbed/node-sim';

const haptic = fileURLToPath(new URL('../../../bin/haptic.js', import.meta.url));

/**
 * Polls `probe` until it returns a value (bounded: `attempts` × `intervalMs`), else fails with
 * `what` and what the probe last gave (its error, or the value it returned).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  attempts = 600,
  intervalMs = 100,
): Promise<T> {
  let last = 'nothing yet';
  for (let i = 0; i < attempts; i++) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = `it returned ${String(value)}`;
    } catch (e) {
      last = `it threw ${e instanceof Error ? e.message : String(e)}`;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`gave up waiting for ${what} after ${attempts} polls; last, ${last}`);
}

/** kube-sim in process, node-sim as a real `haptic node-sim` process, and clients for the test. */
export class Cluster {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly discovery: DiscoveryV1Api;
  readonly stderr: string[] = [];
  instance = '';
  /** Services' cluster IP range (kube-sim's default unless started with `loopbackServices`). */
  serviceCidr = '10.96.0.0/12';
  /** The Node's InternalIP, where node ports listen. */
  nodeIP = '';

  private constructor(
    readonly kubeSim: KubeSim,
    readonly kc: KubeConfig,
    readonly nodeSim: ChildProcess,
    private readonly block: PodBlock,
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.discovery = kc.makeApiClient(DiscoveryV1Api);
  }

  /**
   * Starts kube-sim and node-sim on a pod address block no other test-bed on this machine holds
   * (another test run's pods would otherwise answer on the same addresses). `loopbackServices`
   * gives Services cluster IPs from the block's own loopback range, so node-sim can listen on them.
   */
  static async start(options: { loopbackServices?: boolean } = {}): Promise<Cluster> {
    const block = claimPodBlock();
    try {
      const kubeSim = await KubeSim.start({
        port: 0,
        ...(options.loopbackServices ? { serviceCidr: block.serviceCidr } : {}),
      });
      const cluster = await Cluster.startNodeSim(kubeSim, block);
      if (options.loopbackServices) cluster.serviceCidr = block.serviceCidr;
      return cluster;
    } catch (e) {
      block.release();
      throw e;
    }
  }

  private static async startNodeSim(kubeSim: KubeSim, block: PodBlock): Promise<Cluster> {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeSim.kubeconfigPath);
    const child = spawn(
      process.execPath,
      [
        haptic,
        'node-sim',
        '--kubeconfig',
        kubeSim.kubeconfigPath,
        '--address-range',
        `${block.first}-${block.last}`,
        '--node-ip',
        block.nodeIP,
        '-o',
        'json',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const cluster = new Cluster(kubeSim, kc, child, block);
    createInterface({ input: child.stderr }).on('line', (l) => cluster.stderr.push(l));
    const lines = createInterface({ input: child.stdout });
    const [first] = (await once(lines, 'line')) as [string];
    const ready = JSON.parse(first) as { instance: string; nodeIP: string };
    cluster.instance = ready.instance;
    cluster.nodeIP = ready.nodeIP;
    return cluster;
  }

  /** Every EndpointSlice event of a namespace from now on (a watch, so short-lived states are not missed). */
  async watchSlices(namespace: string): Promise<{ events: V1EndpointSlice[]; stop: () => void }> {
    const events: V1EndpointSlice[] = [];
    const req = await new Watch(this.kc).watch(
      `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
      {},
      (_type, obj: V1EndpointSlice) => events.push(obj),
      () => undefined,
    );
    return { events, stop: () => req.abort() };
  }

  /** Processes node-sim started that are still alive (found by its marker in their environment). */
  leftovers(): number[] {
    return markedProcesses(NODE_SIM_MARKER_ENV, this.instance);
  }

  /** SIGTERM to node-sim; resolves to its exit code. */
  async stopNodeSim(): Promise<number | null> {
    if (this.nodeSim.exitCode !== null) return this.nodeSim.exitCode;
    const exited = once(this.nodeSim, 'exit') as Promise<[number | null]>;
    this.nodeSim.kill('SIGTERM');
    const [code] = await exited;
    return code;
  }

  /** Stops node-sim (SIGTERM, so it stops its pods; SIGKILL only if it hangs) and kube-sim. */
  async stop(): Promise<void> {
    if (this.nodeSim.exitCode === null) {
      const exited = once(this.nodeSim, 'exit');
      this.nodeSim.kill('SIGTERM');
      const timer = setTimeout(() => this.nodeSim.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await this.kubeSim.stop();
    this.block.release();
  }
}
