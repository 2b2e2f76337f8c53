import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { V1Pod, V1PodCondition, V1PodStatus } from '@kubernetes/client-node';
import { planLaunch, type LaunchPlan } from './container-command.js';
import { ContainerRuntime, type BackoffPolicy } from './container-runtime.js';
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
  readonly imageTable: readonly ImageRule[];
  readonly lookup: ObjectLookup;
  /** The kubeconfig a pod gets in place of its in-cluster service account (YAML). */
  readonly kubeconfigFor: (namespace: string) => string;
  readonly token: string;
  readonly backoff: BackoffPolicy;
  readonly probePeriodScale: number;
  /** Marks every process node-sim starts (environment), so a sweep can find strays. */
  readonly marker: Readonly<Record<string, string>>;
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

  /** Creates the pod folder and starts every container (a problem with one is reported on it). */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const saDir = await this.prepareFolder();
    this.saDir = saDir;
    const spec = this.pod.spec;
    for (const container of spec?.containers ?? []) {
      const runtime = new ContainerRuntime(container, {
        restartPolicy:
          (spec?.restartPolicy as 'Always' | 'OnFailure' | 'Never' | undefined) ?? 'Always',
        backoff: this.deps.backoff,
        probePeriodScale: this.deps.probePeriodScale,
        probeTarget: {
          podIP: this.deps.podIP,
          ports: container.ports ?? [],
          env: {},
          cwd: this.deps.podDir,
          mapPath: pathMapper(container, this.deps.podDir, saDir),
        },
        onChange: this.deps.onChange,
      });
      this.containers.push(runtime);
    }
    await this.startPending();
  }

  /**
   * Starts every container not started yet, once the pod's volumes can be filled; containers held
   * back by a missing Secret or ConfigMap are retried on every sync, as the kubelet does.
   */
  private async startPending(): Promise<void> {
    const pending = this.containers.filter((c) => !c.launched);
    if (pending.length === 0) return;
    try {
      await this.syncVolumes();
    } catch (e) {
      if (!(e instanceof PodUnsupportedError)) throw e;
      for (const c of pending)
        c.setWaiting('ContainerCreating', `MountVolume failed: ${e.message}`);
      return;
    }
    const saDir = this.saDir;
    const agent = this.containers.find(
      (c) => ruleFor(c.container, this.deps.imageTable)?.runner === 'agent',
    )?.container.name;
    for (const runtime of pending) {
      const container = runtime.container;
      const rule = ruleFor(container, this.deps.imageTable);
      if (rule === undefined) {
        runtime.setWaiting(
          'ErrImagePull',
          `node-sim has no runner for image "${container.image}" (see the node-sim image table)`,
        );
        continue;
      }
      try {
        const mapPath = pathMapper(container, this.deps.podDir, saDir);
        const facts = {
          podIP: this.deps.podIP,
          hostIP: this.deps.hostIP,
          nodeName: this.deps.nodeName,
        };
        const env = mapEnvPaths(
          {
            POD_IP: this.deps.podIP,
            ...containerEnv(this.pod, container, facts, this.deps.lookup),
          },
          mapPath,
        );
        const plan: LaunchPlan = planLaunch(container, rule, {
          podIP: this.deps.podIP,
          podDir: this.deps.podDir,
          env,
          mapPath,
          ...(agent === undefined || agent === container.name ? {} : { agentContainer: agent }),
        });
        for (const [path, content] of Object.entries(plan.files)) {
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, content, { mode: 0o600 });
        }
        const fullEnv = {
          ...baseEnv(this.deps.podDir),
          ...env,
          KUBECONFIG: join(this.deps.podDir, 'kubeconfig'),
          ...this.deps.marker,
          [POD_MARKER_ENV]: this.pod.metadata?.uid ?? '-',
        };
        const command = this.deps.hapticCommand[0] ?? process.execPath;
        const spec =
          plan.coveredBy === undefined
            ? {
                command,
                args: [...this.deps.hapticCommand.slice(1), ...plan.args],
                env: fullEnv,
                cwd: this.deps.podDir,
                logFile: join(this.deps.podDir, 'logs', `${container.name}.log`),
              }
            : undefined;
        runtime.start(plan, spec);
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
  }

  /** Takes the newest pod object; refreshes mounted Secrets/ConfigMaps and mirrored containers. */
  async update(pod: V1Pod): Promise<void> {
    this.pod = pod;
    if (!this.started || this.terminating) return;
    await this.startPending();
    if (this.containers.some((c) => !c.launched)) return;
    await this.syncVolumes().catch(() => undefined);
    const agentName = this.containers.find(
      (c) => ruleFor(c.container, this.deps.imageTable)?.runner === 'agent',
    );
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
    await Promise.all(this.containers.map((c) => c.stop(graceSeconds * 1000)));
    // A process that left its group (the agent's HAProxy runs in its own session) still carries the pod marker.
    for (const pid of markedProcesses(POD_MARKER_ENV, this.pod.metadata?.uid ?? '-')) killPid(pid);
    this.finished = true;
    await rm(this.deps.podDir, { recursive: true, force: true }).catch(() => undefined);
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
    const allTerminated =
      statuses.length > 0 && statuses.every((s) => s.state?.terminated !== undefined);
    const anyRunning = statuses.some(
      (s) => s.state?.running !== undefined || s.lastState?.terminated !== undefined,
    );
    const failed = statuses.some((s) => (s.state?.terminated?.exitCode ?? 0) !== 0);
    const phase =
      allTerminated && !this.terminating
        ? failed
          ? 'Failed'
          : 'Succeeded'
        : anyRunning
          ? 'Running'
          : 'Pending';
    const ready = this.ready;
    return {
      phase,
      conditions: [
        this.condition('PodReadyToStartContainers', true),
        this.condition('Initialized', true),
        this.condition('Ready', ready),
        this.condition('ContainersReady', ready),
        this.condition('PodScheduled', true),
      ].map(({ lastProbeTime: _drop, ...c }) => c),
      hostIP: this.deps.hostIP,
      hostIPs: [{ ip: this.deps.hostIP }],
      podIP: this.deps.podIP,
      podIPs: [{ ip: this.deps.podIP }],
      startTime: this.startTime,
      containerStatuses: statuses,
      qosClass: 'BestEffort',
    };
  }
}
