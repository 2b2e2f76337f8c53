import type { FieldProblem, TemplateConfig } from '#core';
import type { LeaderStatus } from './leadership.js';
import type { ValidatedRender } from './ports.js';

/** One object a watch saw change. */
export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

/** A HAProxy pod found by the config's podSelector, whose Dataplane container is ready. */
export interface HaproxyPod {
  readonly namespace: string;
  readonly name: string;
  /** Pod IP (status.podIP). */
  readonly address: string;
  /** Port of the Dataplane API on that address. */
  readonly dataplanePort: number;
  readonly uid?: string;
  /** Name of the container that serves the Dataplane API (set by pod discovery). */
  readonly container?: string;
}

/** Dataplane API credentials from the credentials Secret (never logged, redacted in /debug). */
export interface DataplaneCredentials {
  readonly username: string;
  readonly password: string;
  /** resourceVersion of the Secret they came from (a rotation changes it). */
  readonly version?: string;
}

/**
 * The stages of one deployment to one pod: waiting for the pod (its deployment ahead, a parallel
 * slot, a backoff), reading the pod and planning, waiting out the reload gate
 * (minDeploymentInterval, stagger) or the stored copy ahead, runtime operations, storage writes,
 * the reload.
 */
export const DEPLOY_STAGES = ['queue', 'plan', 'wait', 'runtime', 'storage', 'reload'] as const;
export type DeployStage = (typeof DEPLOY_STAGES)[number];

/**
 * The stages of one change from the index to the pods (the label values of
 * haptic_change_stage_seconds, a fixed set): `index` (received → published), `debounce`
 * (published → render triggered), `render`, `validate`, `deploy` (per pod, with its DEPLOY_STAGES)
 * and `applied` (received → the last pod deployed).
 */
export const CHANGE_STAGES = [
  'index',
  'debounce',
  'render',
  'validate',
  'deploy',
  ...DEPLOY_STAGES,
  'applied',
] as const;
export type ChangeStage = (typeof CHANGE_STAGES)[number];

/** At most this many change correlation ids ride on one reconcile.triggered. */
export const CHANGES_PER_RUN = 64;

/**
 * Fact topics: ordered, never dropped. Names are `noun.past-verb`. Payloads are immutable facts;
 * the envelope (BusEvent) adds seq, timestamp and correlation id.
 */
export interface HapticFacts {
  /** A watched object was added, changed or deleted, or a whole type was re-listed. */
  'resource.changed': {
    readonly watched: string;
    readonly change: 'added' | 'modified' | 'deleted' | 'relisted';
    readonly object?: ObjectRef;
    /** When the index received the (first coalesced) change, ms since the epoch: the `index` stage ends at publish. */
    readonly receivedAt?: number;
  };
  /** Every watch has delivered its first list. */
  'index.synced': { readonly watched: readonly string[] };
  /** A HAProxyTemplateConfig was parsed and accepted. */
  'config.accepted': { readonly name: string; readonly generation: number };
  /** A HAProxyTemplateConfig was refused; the last good one keeps serving. */
  'config.rejected': {
    readonly name: string;
    readonly problems: readonly FieldProblem[];
    /** metadata.generation of the refused object (for status observedGeneration). */
    readonly generation?: number;
  };
  /** The reconcile loop decided to render. */
  'reconcile.triggered': {
    readonly reason: string;
    readonly coalesced: number;
    /** Correlation ids of the changes this run covers (bounded: the first CHANGES_PER_RUN). */
    readonly changes?: readonly string[];
  };
  /** A render finished; `hash` identifies its outputs. */
  'render.completed': { readonly hash: string; readonly durationMs: number };
  'render.failed': { readonly reason: string };
  /** One object was left out of a render because of its content. */
  'object.quarantined': {
    readonly watched: string;
    readonly object: ObjectRef;
    readonly reason: string;
  };
  'validation.completed': { readonly hash: string; readonly durationMs: number };
  'validation.failed': { readonly hash: string; readonly reason: string };
  /** A configuration reached one HAProxy pod. */
  'deploy.completed': {
    readonly pod: string;
    readonly hash: string;
    readonly reloaded: boolean;
    readonly runtimeOperations: number;
    readonly durationMs: number;
    /** Where the deployment's time went, ms per stage (stages that did not run are absent). */
    readonly stages?: Readonly<Partial<Record<DeployStage, number>>>;
  };
  'deploy.failed': { readonly pod: string; readonly hash: string; readonly reason: string };
}

/** State topics: the latest value; a late subscriber gets it at once. */
export interface HapticStates {
  /** The HAProxy pods to deploy to, sorted by namespace/name. */
  'haproxy.pods': readonly HaproxyPod[];
  'dataplane.credentials': DataplaneCredentials;
  /** The config in force (the last one accepted). */
  'config.current': TemplateConfig;
  /** The newest render, not yet validated (validation takes it from here; latest wins). */
  'render.rendered': ValidatedRender;
  /** The newest render that passed validation: the deployer deploys only this (latest wins). */
  'render.validated': ValidatedRender;
  /**
   * What the HAProxy pods ran when this replica started leading, read back from them (the
   * configuration most of the non-empty pods run; null when none runs one): the renderer's stable
   * choices (server slots) start from it, so a restart or a leader change costs no reload.
   */
  'dataplane.readback': {
    readonly haproxyConfig: string | null;
    readonly maps: Readonly<Record<string, string>>;
    /** Pods read; pods that agree with the chosen configuration. */
    readonly pods: number;
    readonly agreeing: number;
  };
  /** Per-pod deployment state of the leader's deployer (sorted by pod). */
  'dataplane.pods': readonly {
    readonly pod: string;
    readonly deployedHash: string | null;
    readonly busy: boolean;
    readonly lastReloadAt: string | null;
    readonly lastReloadReasons: readonly string[];
    readonly runtimeOperations: number;
    readonly lastError: string | null;
    readonly consecutiveFailures: number;
  }[];
  /** Whether this replica leads (set only by the LeaderModule). */
  'leader.status': LeaderStatus;
  /**
   * What the last successful render reports about objects it served (e.g. an annotation it does
   * not honour), sorted; set only when the list changes.
   */
  'render.notices': readonly RenderNoticeFact[];
}

/** A notice of a render about one served object (libs/status writes it as a Warning Event). */
export interface RenderNoticeFact {
  readonly watched: string;
  readonly object: ObjectRef;
  /** CamelCase, the Event's reason. */
  readonly reason: string;
  readonly message: string;
}

export type HapticFactTopic = keyof HapticFacts;
export type HapticStateTopic = keyof HapticStates;
