import type { HaproxyPod, ValidatedRender } from '#events';
import type { DataplaneClient, DataplaneTls } from './client.js';
import type { KnownPod, SyncOptions, SyncResult } from './sync-engine.js';
import type { PodFiles } from './sync-plan.js';

/** Result of one deployment to one pod, for events, metrics and the per-pod state. */
export type PodDeployResult =
  | {
      readonly ok: true;
      readonly pod: HaproxyPod;
      readonly hash: string;
      readonly outcome: SyncResult;
      readonly durationMs: number;
    }
  | {
      readonly ok: false;
      readonly pod: HaproxyPod;
      readonly hash: string;
      readonly error: unknown;
      readonly durationMs: number;
    };

/** What one pod runs, read back before the first deployment to it (undefined: it could not be read). */
export interface PodReadBack {
  readonly pod: HaproxyPod;
  readonly files: PodFiles | undefined;
}

/** Per-pod deployment state (shown on /debug/pods, published on the bus). */
export interface PodDeployState {
  readonly pod: string;
  readonly deployedHash: string | null;
  readonly busy: boolean;
  readonly lastReloadAt: string | null;
  readonly lastReloadReasons: readonly string[];
  readonly runtimeOperations: number;
  readonly lastError: string | null;
  readonly consecutiveFailures: number;
}

export type DeployFn = (
  client: DataplaneClient,
  render: ValidatedRender,
  opts: SyncOptions,
) => Promise<SyncResult>;

export interface FleetOptions {
  readonly scheme: 'http' | 'https';
  readonly tls?: DataplaneTls;
  readonly minDeploymentIntervalMs: number;
  /** Least time between two reloads started on different pods (replicas never reload together). */
  readonly staggerMs?: number;
  readonly maxParallel: number;
  readonly identity: string;
  readonly timeoutMs: number;
  readonly onResult: (result: PodDeployResult) => void | Promise<void>;
  /** Each pod's running deployment, read once before the first deployment to it. */
  readonly onReadBack?: (readBack: PodReadBack) => void;
  /** Called whenever a pod's state changes. */
  readonly onState?: () => void;
  /**
   * Nothing is read or written before this settles: the stop of the fleet this one replaces, whose
   * deployments in flight must end first (an older render finishing after a newer one would put
   * the pod back on the older one, which no later check would see).
   */
  readonly after?: Promise<unknown>;
  readonly deploy?: DeployFn;
  readonly read?: (client: DataplaneClient) => Promise<PodFiles>;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/** One pod's deployment state inside the Fleet. */
export interface PodState {
  pod: HaproxyPod;
  deployedHash: string | undefined;
  lastDeployAt: number;
  lastReloadAt: number;
  /** When the last reload through the gate began: minDeploymentInterval counts from there. */
  lastReloadStartAt: number;
  lastReloadReasons: readonly string[];
  runtimeOperations: number;
  lastError: string | undefined;
  running: Promise<void> | undefined;
  forceCheck: boolean;
  needsReadBack: boolean;
  failures: number;
  /** A deployment wrote to the pod and did not finish: the next one reloads (SyncOptions.recover). */
  partial: boolean;
  /** A kick arrived while the loop was finishing: look again. */
  rekick: boolean;
  /** What the last deployment left on the pod; dropped on a failure or a drift check. */
  known: KnownPod | undefined;
  /**
   * The stored copy of a runtime-only deployment already applied, still being written (off the
   * critical path: the next deployment's runtime operations do not wait for it, its storage
   * writes do): the configuration version it leaves; rejects when it failed.
   */
  persisting: Promise<number> | undefined;
  /** Tells the deployment behind `persisting` that a newer one pushes the whole configuration. */
  supersede: (() => void) | undefined;
  /** Deployments started: only the newest one's end clears `partial` and sets `known`. */
  seq: number;
  /** When the render the pod does not hold yet was handed over (for the `queue` stage). */
  renderSetAt: number | undefined;
  /**
   * A render arrived while a reload of this pod ran: its reload is one of a burst and is paced
   * by minDeploymentInterval. A lone change (no reload under way when it arrived) is not.
   */
  burst: boolean;
  /** A deployment passed the reload gate and its reload has not succeeded (nor the deployment ended). */
  reloading: boolean;
}
