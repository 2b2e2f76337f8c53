import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { type AddressPool } from './address-pool.js';
import { apiReason, apiStatus, type ClusterWatch } from './cluster.js';
import type { PodEndpoint } from './endpoint-slices.js';
import { PodRuntime, type PodRuntimeDeps } from './pod-runtime.js';
import { stableJson } from './selectors.js';
import { isReady } from './workload-planning.js';

/** What the kubelet shares with every pod runtime (everything but the pod's own address and folder). */
export type SharedPodDeps = Omit<PodRuntimeDeps, 'podIP' | 'podDir' | 'onChange'>;

/** One pod process as node-sim runs it (for tests and `haptic node-sim -o json`). */
export interface RunningPod {
  readonly namespace: string;
  readonly name: string;
  readonly ip: string;
  readonly terminating: boolean;
  readonly pids: readonly number[];
}

/**
 * Plays the kubelet: runs every pod bound to this node (or to none) as local processes, on its own
 * loopback address, writes pod status, and on deletion stops the processes with the pod's grace
 * period before it removes the pod for good.
 */
export class Kubelet {
  private readonly runtimes = new Map<string, PodRuntime>();
  private readonly written = new Map<string, string>();
  private readonly dirtyStatus = new Set<string>();

  constructor(
    private readonly watch: ClusterWatch,
    private readonly pool: AddressPool,
    private readonly rootDir: string,
    private readonly shared: SharedPodDeps,
    private readonly markDirty: () => void,
    private readonly log: (line: string) => void,
  ) {}

  private mine(pod: V1Pod): boolean {
    const node = pod.spec?.nodeName;
    return node === undefined || node === '' || node === this.shared.nodeName;
  }

  /** Brings runtimes in line with the pods in the cache; writes changed pod statuses. */
  async sync(): Promise<void> {
    const seen = new Set<string>();
    for (const pod of this.watch.pods.list()) {
      const uid = pod.metadata?.uid;
      if (uid === undefined || !this.mine(pod)) continue;
      seen.add(uid);
      await this.syncPod(uid, pod);
    }
    for (const [uid, runtime] of this.runtimes) {
      // Deleted at once (no graceful deletion): stop it anyway; it stays a terminating endpoint until gone.
      if (!seen.has(uid) && !runtime.terminating) this.terminate(uid, runtime, false);
    }
    await this.writeStatuses();
  }

  private async syncPod(uid: string, pod: V1Pod): Promise<void> {
    const runtime = this.runtimes.get(uid);
    if (pod.metadata?.deletionTimestamp != null) {
      if (runtime === undefined) await this.finalize(pod);
      else if (!runtime.terminating) this.terminate(uid, runtime, true);
      return;
    }
    const phase = pod.status?.phase;
    if (runtime === undefined && (phase === 'Succeeded' || phase === 'Failed')) return;
    if (runtime !== undefined) {
      await runtime.update(pod);
      return;
    }
    const ip =
      pod.status?.podIP !== undefined && this.pool.claim(pod.status.podIP)
        ? pod.status.podIP
        : this.pool.allocate();
    const name = pod.metadata?.name ?? 'pod';
    const created = new PodRuntime(pod, {
      ...this.shared,
      podIP: ip,
      // Short folder names: HAProxy's unix sockets live under it and socket paths are limited to ~100 bytes.
      podDir: join(this.rootDir, uid.slice(0, 8)),
      onChange: () => {
        this.dirtyStatus.add(uid);
        this.markDirty();
      },
    });
    this.runtimes.set(uid, created);
    this.dirtyStatus.add(uid);
    this.log(`pod ${pod.metadata?.namespace}/${name} starting on ${ip}`);
    await created.start();
  }

  private terminate(uid: string, runtime: PodRuntime, stillInApi: boolean): void {
    const pod = runtime.pod;
    const grace =
      pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    this.log(`pod ${runtime.key} terminating (grace ${grace}s)`);
    void runtime.terminate(grace).then(async () => {
      this.log(`pod ${runtime.key} stopped`);
      if (stillInApi) await this.finalize(pod);
      this.runtimes.delete(uid);
      this.written.delete(uid);
      this.pool.release(runtime.podIP);
      this.markDirty();
    });
  }

  /** Removes a pod whose processes are gone (the kubelet's final delete with grace period 0). */
  private async finalize(pod: V1Pod): Promise<void> {
    try {
      await this.watch.core.deleteNamespacedPod({
        name: pod.metadata!.name!,
        namespace: pod.metadata!.namespace!,
        gracePeriodSeconds: 0,
      });
    } catch (e) {
      if (apiStatus(e) !== 404)
        this.log(`final delete of pod ${pod.metadata?.name} failed: ${apiReason(e)}`);
    }
  }

  private async writeStatuses(): Promise<void> {
    for (const uid of [...this.dirtyStatus]) {
      this.dirtyStatus.delete(uid);
      const runtime = this.runtimes.get(uid);
      if (runtime === undefined || runtime.stopped) continue;
      const cached = this.watch.pods
        .list(runtime.pod.metadata?.namespace)
        .find((p) => p.metadata?.uid === uid);
      if (cached === undefined) continue;
      const status = runtime.status();
      const digest = stableJson(status);
      if (this.written.get(uid) === digest) continue;
      try {
        await this.watch.core.replaceNamespacedPodStatus({
          name: cached.metadata!.name!,
          namespace: cached.metadata!.namespace!,
          body: { ...cached, status },
        });
        this.written.set(uid, digest);
      } catch (e) {
        // A conflict means the cache is behind; the next pass retries with the newer object.
        this.dirtyStatus.add(uid);
        if (apiStatus(e) !== 409 && apiStatus(e) !== 404)
          this.log(`status of pod ${runtime.key} not written: ${apiReason(e)}`);
        if (apiStatus(e) !== 404) setTimeout(this.markDirty, 200).unref();
      }
    }
  }

  /** The pods this node runs as endpoint candidates, including deleted pods still stopping. */
  endpoints(): PodEndpoint[] {
    const out: PodEndpoint[] = [];
    const seen = new Set<string>();
    for (const [uid, r] of this.runtimes) {
      seen.add(uid);
      const terminating = r.terminating || r.pod.metadata?.deletionTimestamp != null;
      out.push({
        pod: r.pod,
        ip: r.podIP,
        ready: r.ready && !terminating,
        serving: r.serving,
        terminating,
        nodeName: this.shared.nodeName,
      });
    }
    // Pods of other nodes (or from before a restart) count with what their status says.
    for (const pod of this.watch.pods.list()) {
      const uid = pod.metadata?.uid ?? '';
      const ip = pod.status?.podIP;
      if (
        seen.has(uid) ||
        ip === undefined ||
        pod.status?.phase === 'Succeeded' ||
        pod.status?.phase === 'Failed'
      )
        continue;
      const terminating = pod.metadata?.deletionTimestamp != null;
      out.push({
        pod,
        ip,
        ready: isReady(pod) && !terminating,
        serving: isReady(pod),
        terminating,
        nodeName: pod.spec?.nodeName ?? '',
      });
    }
    return out;
  }

  /** Every pod this node runs, with its address and process ids. */
  running(): RunningPod[] {
    return [...this.runtimes.values()].map((r) => ({
      namespace: r.pod.metadata?.namespace ?? '',
      name: r.pod.metadata?.name ?? '',
      ip: r.podIP,
      terminating: r.terminating,
      pids: r.containers.map((c) => c.pid).filter((p): p is number => p !== undefined),
    }));
  }

  /** Stops every pod (grace periods capped at `maxGraceSeconds`) and waits until all are gone. */
  async stopAll(maxGraceSeconds: number): Promise<void> {
    await Promise.all(
      [...this.runtimes.values()].map((r) => {
        const grace = r.pod.spec?.terminationGracePeriodSeconds ?? 30;
        return r.terminate(Math.min(grace, maxGraceSeconds));
      }),
    );
    for (const r of this.runtimes.values()) this.pool.release(r.podIP);
    this.runtimes.clear();
  }
}
