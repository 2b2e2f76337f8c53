import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { V1Container, V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';
import { agentSpawnsHaproxy, planLaunch, type LaunchPlan } from './container-command.js';
import { ContainerRuntime, type BackoffPolicy } from './container-runtime.js';
import type { ProcessSpec } from './process-group.js';

type RestartPolicy = 'Always' | 'OnFailure' | 'Never';
import { ruleFor, type ImageRule } from './image-table.js';
import { ContainerConfigError, containerEnv, type ObjectLookup } from './pod-env.js';
import { pathMapper, syncVolumes, VolumeMountError, type PathMapper } from './pod-volumes.js';
import { PodUnsupportedError } from './node-sim.errors.js';
import { killPid, markedProcesses } from './process-group.js';

/** Environment variable naming the pod (its uid) on every process of that pod. */
export const POD_MARKER_ENV = 'HAPTIC_NODE_SIM_POD';

/** Everything a pod runtime needs from node-sim. */
export interface PodRuntimeDeps {
  readonly podIP: string;
  readonly hostIP: string;
  readonly nodeName: string;
  readonly podDir: string;
  /** The `haptic` command: executable and leading arguments (node and bin/haptic.js). */
  readonly hapticCommand: readonly string[];
  /** The HAProxy binary an HAProxy container's `haproxy` command runs. */
  readonly haproxyBin: string;
  readonly imageTable: readonly ImageRule[];
  readonly lookup: ObjectLookup;
  /** The kubeconfig a pod gets in place of its in-cluster service account (YAML). */
  readonly kubeconfigFor: (namespace: string) => string;
  readonly token: string;
  readonly backoff: BackoffPolicy;
  readonly probePeriodScale: number;
  /** Marks every process node-sim starts (environment), so a sweep can find strays. */
  readonly marker: Readonly<Record<string, string>>;
  /** Stopped pods' folders are moved here (as `<namespace>_<name>`) instead of removed. */
  readonly keptDir?: string;
  readonly onChange: () => void;
}

/**
 * Environment values that are absolute paths under a mount (`TLS_SERVER_CERT=/etc/secret-volume/crt`)
 * point into the pod folder instead, so images configured by file paths run unchanged.
 */
export function mapEnvPaths(
  env: Record<string, string>,
  mapPath: PathMapper,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, v.startsWith('/') ? mapPath(v) : v]),
  );
}

/** Environment every container process starts from (a container starts with almost nothing too). */
function baseEnv(podDir: string): Record<string, string> {
  const keep = ['PATH', 'LANG', 'TZ', 'NODE_EXTRA_CA_CERTS'];
  const env: Record<string, string> = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  env['HOME'] = join(podDir, 'home');
  env['TMPDIR'] = join(podDir, 'tmp');
  return env;
}

/**
 * One pod on this machine: its folder (volumes, kubeconfig, service-account files, logs), its
 * containers as processes, and the pod status a kubelet would report for it.
 */
export class PodRuntime {
  pod: V1Pod;
  readonly containers: ContainerRuntime[] = [];
  readonly initContainers: ContainerRuntime[] = [];
  terminating = false;
  private readonly startTime = new Date();
  private readonly transitions = new Map<string, { status: string; at: Date }>();
  private started = false;
  private finished = false;
  private saDir = '';

  constructor(
    pod: V1Pod,
    private readonly deps: PodRuntimeDeps,
  ) {
    this.pod = pod;
  }

  get key(): string {
    return `${this.pod.metadata?.namespace}/${this.pod.metadata?.name}`;
  }

  get podIP(): string {
    return this.deps.podIP;
  }

  get stopped(): boolean {
    return this.finished;
  }

  /** Ready when every container is ready (the pod's Ready condition). */
  get ready(): boolean {
    return !this.terminating && this.containers.length > 0 && this.containers.every((c) => c.ready);
  }

  /** Ready ignoring termination: what an EndpointSlice calls `serving`. */
  get serving(): boolean {
    return this.containers.length > 0 && this.containers.every((c) => c.ready);
  }

  private async prepareFolder(): Promise<string> {
    const { podDir } = this.deps;
    const saDir = join(podDir, 'serviceaccount');
    for (const d of ['home', 'tmp', 'logs', 'secrets'])
      await mkdir(join(podDir, d), { recursive: true });
    await mkdir(saDir, { recursive: true });
    const ns = this.pod.metadata?.namespace ?? 'default';
    await writeFile(join(podDir, 'kubeconfig'), this.deps.kubeconfigFor(ns), { mode: 0o600 });
    await writeFile(join(podDir, 'pod'), `${ns}/${this.pod.metadata?.name ?? ''}\n`);
    await writeFile(join(saDir, 'token'), this.deps.token, { mode: 0o600 });
    await writeFile(join(saDir, 'namespace'), ns);
    await writeFile(join(saDir, 'kubeconfig'), this.deps.kubeconfigFor(ns), { mode: 0o600 });
    return saDir;
  }

  private newRuntime(container: V1Container, init: boolean): ContainerRuntime {
    const policy = (this.pod.spec?.restartPolicy as RestartPolicy | undefined) ?? 'Always';
    return new ContainerRuntime(container, {
      // An init container runs to completion: retried on failure unless the pod never restarts.
      restartPolicy: init ? (policy === 'Never' ? 'Never' : 'OnFailure') : policy,
      backoff: this.deps.backoff,
      probePeriodScale: this.deps.probePeriodScale,
      probeTarget: {
        podIP: this.deps.podIP,
        ports: container.ports ?? [],
        env: {},
        cwd: this.deps.podDir,
        mapPath: pathMapper(container, this.deps.podDir, this.saDir),
      },
      onChange: this.deps.onChange,
    });
  }

  /** Creates the pod folder and starts the init containers one by one, then every container. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.saDir = await this.prepareFolder();
    for (const c of this.pod.spec?.initContainers ?? [])
      this.initContainers.push(this.newRuntime(c, true));
    for (const c of this.pod.spec?.containers ?? [])
      this.containers.push(this.newRuntime(c, false));
    await this.startPending();
  }

  /** True once every init container has completed successfully. */
  get initialized(): boolean {
    return this.initContainers.every((c) => c.completed);
  }

  /**
   * Starts what may start now: the next init container once its predecessor completed, then every
   * container not started yet, once the pod's volumes can be filled. Containers held back by a
   * missing Secret or ConfigMap are retried on every sync, as the kubelet does.
   */
  private async startPending(): Promise<void> {
    const nextInit = this.initContainers.find((c) => !c.completed);
    const pending =
      nextInit === undefined
        ? this.containers.filter((c) => !c.launched)
        : nextInit.launched
          ? []
          : [nextInit];
    if (pending.length === 0) return;
    try {
      await this.syncVolumes();
    } catch (e) {
      if (!(e instanceof PodUnsupportedError)) throw e;
      for (const c of pending)
        c.setWaiting('ContainerCreating', `MountVolume failed: ${e.message}`);
      return;
    }
    const agent = this.spawningAgent()?.container.name;
    for (const runtime of pending) await this.launch(runtime, agent);
  }

  /**
   * The container whose agent starts HAProxy itself (and so plays the pod's HAProxy containers),
   * if any; an agent attached to an HAProxy container (`--master-socket`) is not one.
   */
  private spawningAgent(): ContainerRuntime | undefined {
    return this.containers.find((c) =>
      agentSpawnsHaproxy(c.container, ruleFor(c.container, this.deps.imageTable)),
    );
  }

  /** Starts one container by its image-table rule, or reports on it why it cannot start. */
  private async launch(runtime: ContainerRuntime, agent: string | undefined): Promise<void> {
    const container = runtime.container;
    const rule = ruleFor(container, this.deps.imageTable);
    if (rule === undefined) {
      runtime.setWaiting(
        'ErrImagePull',
        `node-sim has no runner for image "${container.image}" (see the node-sim image table)`,
      );
      return;
    }
    try {
      const mapPath = pathMapper(container, this.deps.podDir, this.saDir);
      const facts = {
        podIP: this.deps.podIP,
        hostIP: this.deps.hostIP,
        nodeName: this.deps.nodeName,
      };
      const env = mapEnvPaths(
        { POD_IP: this.deps.podIP, ...containerEnv(this.pod, container, facts, this.deps.lookup) },
        mapPath,
      );
      const covered =
        agent === undefined || agent === container.name ? {} : { agentContainer: agent };
      const plan = planLaunch(container, rule, {
        podIP: this.deps.podIP,
        podDir: this.deps.podDir,
        env,
        mapPath,
        haproxyBin: this.deps.haproxyBin,
        ...covered,
      });
      for (const [path, content] of Object.entries(plan.files)) {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, content, { mode: 0o600 });
      }
      runtime.start(
        plan,
        plan.coveredBy === undefined ? this.processSpec(container.name, plan, env) : undefined,
      );
    } catch (e) {
      if (!(e instanceof PodUnsupportedError)) throw e;
      const reason =
        e instanceof ContainerConfigError
          ? 'CreateContainerConfigError'
          : e instanceof VolumeMountError
            ? 'ContainerCreating'
            : 'CreateContainerError';
      runtime.setWaiting(reason, e.message);
    }
  }

  private processSpec(name: string, plan: LaunchPlan, env: Record<string, string>): ProcessSpec {
    const haptic = plan.command === undefined;
    return {
      command: plan.command ?? this.deps.hapticCommand[0] ?? process.execPath,
      args: haptic ? [...this.deps.hapticCommand.slice(1), ...plan.args] : plan.args,
      env: {
        ...baseEnv(this.deps.podDir),
        ...env,
        KUBECONFIG: join(this.deps.podDir, 'kubeconfig'),
        ...this.deps.marker,
        [POD_MARKER_ENV]: this.pod.metadata?.uid ?? '-',
      },
      cwd: plan.cwd ?? this.deps.podDir,
      logFile: join(this.deps.podDir, 'logs', `${name}.log`),
    };
  }

  /** Takes the newest pod object; refreshes mounted Secrets/ConfigMaps and mirrored containers. */
  async update(pod: V1Pod): Promise<void> {
    this.pod = pod;
    if (!this.started || this.terminating) return;
    await this.startPending();
    if (this.containers.some((c) => !c.launched)) return;
    await this.syncVolumes().catch(() => undefined);
    const agentName = this.spawningAgent();
    for (const c of this.containers) {
      if (
        agentName !== undefined &&
        c !== agentName &&
        ruleFor(c.container, this.deps.imageTable)?.runner === 'haproxy'
      )
        c.mirror(agentName);
    }
  }

  private async syncVolumes(): Promise<void> {
    const facts = {
      podIP: this.deps.podIP,
      hostIP: this.deps.hostIP,
      nodeName: this.deps.nodeName,
    };
    await syncVolumes(this.pod, this.deps.podDir, {
      lookup: this.deps.lookup,
      facts,
      token: this.deps.token,
    });
  }

  /** Stops every container (preStop, SIGTERM, SIGKILL after the grace period), then removes the folder. */
  async terminate(graceSeconds: number): Promise<void> {
    this.terminating = true;
    this.deps.onChange();
    await Promise.all(
      [...this.initContainers, ...this.containers].map((c) => c.stop(graceSeconds * 1000)),
    );
    // A process that left its group (the agent's HAProxy runs in its own session) still carries the pod marker.
    for (const pid of markedProcesses(POD_MARKER_ENV, this.pod.metadata?.uid ?? '-')) killPid(pid);
    this.finished = true;
    await this.removeFolder();
  }

  private async removeFolder(): Promise<void> {
    const { keptDir, podDir } = this.deps;
    if (keptDir !== undefined) {
      const meta = this.pod.metadata;
      const kept = join(keptDir, `${meta?.namespace ?? 'default'}_${meta?.name ?? 'pod'}`);
      await mkdir(keptDir, { recursive: true });
      if (
        await rename(podDir, kept).then(
          () => true,
          () => false,
        )
      )
        return;
    }
    await rm(podDir, { recursive: true, force: true }).catch(() => undefined);
  }

  private condition(type: string, ok: boolean): V1PodCondition {
    const status = ok ? 'True' : 'False';
    const prev = this.transitions.get(type);
    if (prev?.status !== status) this.transitions.set(type, { status, at: new Date() });
    return {
      type,
      status,
      lastProbeTime: undefined as unknown as Date,
      lastTransitionTime: this.transitions.get(type)!.at,
    };
  }

  /** The pod status as a kubelet would write it. */
  status(): V1PodStatus {
    const statuses = this.containers.map((c) => c.status());
    const initFailed = this.initContainers.some(
      (c) => c.status().state?.terminated !== undefined && !c.completed,
    );
    const allTerminated =
      statuses.length > 0 && statuses.every((s) => s.state?.terminated !== undefined);
    const anyRunning = statuses.some(
      (s) => s.state?.running !== undefined || s.lastState?.terminated !== undefined,
    );
    const failed = initFailed || statuses.some((s) => (s.state?.terminated?.exitCode ?? 0) !== 0);
    const done = (allTerminated || initFailed) && !this.terminating;
    const phase = done ? (failed ? 'Failed' : 'Succeeded') : anyRunning ? 'Running' : 'Pending';
    const ready = this.ready;
    return {
      phase,
      conditions: [
        this.condition('PodReadyToStartContainers', true),
        this.condition('Initialized', this.initialized),
        this.condition('Ready', ready),
        this.condition('ContainersReady', ready),
        this.condition('PodScheduled', true),
      ].map(({ lastProbeTime: _drop, ...c }) => c),
      hostIP: this.deps.hostIP,
      hostIPs: [{ ip: this.deps.hostIP }],
      podIP: this.deps.podIP,
      podIPs: [{ ip: this.deps.podIP }],
      startTime: this.startTime,
      ...(this.initContainers.length === 0
        ? {}
        : { initContainerStatuses: this.initContainers.map((c) => c.status()) }),
      containerStatuses: statuses,
      qosClass: 'BestEffort',
    };
  }
}
