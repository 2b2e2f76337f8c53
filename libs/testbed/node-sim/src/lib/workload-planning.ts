import type {
  V1Deployment,
  V1DeploymentCondition,
  V1DeploymentStatus,
  V1OwnerReference,
  V1Pod,
  V1ReplicaSet,
  V1ReplicaSetStatus,
} from '@kubernetes/client-node';
import { matchesSelector, randomSuffix, shortHash } from './selectors.js';

export const POD_TEMPLATE_HASH = 'pod-template-hash';
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';

/** The controller owner reference of an object, if any. */
export function controllerOf(obj: {
  metadata?: { ownerReferences?: V1OwnerReference[] };
}): V1OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((o) => o.controller === true);
}

/** True when `obj` is controlled by the object with this uid. */
export function ownedBy(
  obj: { metadata?: { ownerReferences?: V1OwnerReference[] } },
  uid: string | undefined,
): boolean {
  return uid !== undefined && controllerOf(obj)?.uid === uid;
}

function ownerRef(
  kind: string,
  apiVersion: string,
  owner: { metadata?: { name?: string; uid?: string } },
): V1OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A pod counts for its ReplicaSet until it is deleted or has finished. */
export function isActive(pod: V1Pod): boolean {
  return (
    pod.metadata?.deletionTimestamp == null &&
    pod.status?.phase !== 'Succeeded' &&
    pod.status?.phase !== 'Failed'
  );
}

/** True when the pod's Ready condition is True. */
export function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The ReplicaSet a Deployment's current template asks for (name `<deployment>-<template hash>`). */
export function replicaSetFor(deploy: V1Deployment, revision: number): V1ReplicaSet {
  const template = deploy.spec!.template;
  const hash = shortHash(template);
  const labels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${deploy.metadata!.name}-${hash}`,
      namespace: deploy.metadata!.namespace!,
      labels,
      annotations: { [REVISION_ANNOTATION]: String(revision) },
      ownerReferences: [ownerRef('Deployment', 'apps/v1', deploy)],
    },
    spec: {
      replicas: deploy.spec!.replicas ?? 1,
      minReadySeconds: deploy.spec!.minReadySeconds ?? 0,
      selector: {
        ...deploy.spec!.selector,
        matchLabels: { ...(deploy.spec!.selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash },
      },
      template: { ...template, metadata: { ...(template.metadata ?? {}), labels } },
    },
  };
}

/** What the Deployment controller should do now. */
export interface DeploymentPlan {
  readonly create?: V1ReplicaSet;
  readonly scale: readonly { rs: V1ReplicaSet; replicas: number }[];
  readonly status: V1DeploymentStatus;
}

function condition(
  type: string,
  ok: boolean,
  reason: string,
  message: string,
  prev?: V1DeploymentCondition[],
): V1DeploymentCondition {
  const status = ok ? 'True' : 'False';
  const old = prev?.find((c) => c.type === type);
  const at =
    old?.status === status && old.lastTransitionTime !== undefined
      ? old.lastTransitionTime
      : new Date();
  return { type, status, reason, message, lastUpdateTime: at, lastTransitionTime: at };
}

/**
 * Deployment → ReplicaSets: the ReplicaSet of the current template gets the desired replicas; older
 * ones are scaled to zero at once (Recreate) or once the new one is fully ready (RollingUpdate,
 * approximated as a 100% surge).
 */
export function planDeployment(
  deploy: V1Deployment,
  owned: readonly V1ReplicaSet[],
): DeploymentPlan {
  const revisions = owned.map((rs) => Number(rs.metadata?.annotations?.[REVISION_ANNOTATION] ?? 0));
  const wanted = replicaSetFor(deploy, Math.max(0, ...revisions) + 1);
  const current = owned.find((rs) => rs.metadata?.name === wanted.metadata?.name);
  const desired = deploy.spec?.replicas ?? 1;
  const scale: { rs: V1ReplicaSet; replicas: number }[] = [];
  if (current !== undefined && (current.spec?.replicas ?? 1) !== desired)
    scale.push({ rs: current, replicas: desired });
  const newReady = current?.status?.readyReplicas ?? 0;
  const recreate = deploy.spec?.strategy?.type === 'Recreate';
  for (const rs of owned) {
    if (rs === current || (rs.spec?.replicas ?? 0) === 0) continue;
    if (recreate || newReady >= desired) scale.push({ rs, replicas: 0 });
  }
  const sum = (f: (s: V1ReplicaSetStatus) => number | undefined): number =>
    owned.reduce((n, rs) => n + (f(rs.status ?? { replicas: 0 }) ?? 0), 0);
  const ready = sum((s) => s.readyReplicas);
  const available = sum((s) => s.availableReplicas);
  const replicas = sum((s) => s.replicas);
  const updated = current?.status?.replicas ?? 0;
  const prev = deploy.status?.conditions;
  const status: V1DeploymentStatus = {
    observedGeneration: deploy.metadata?.generation ?? 1,
    replicas,
    updatedReplicas: updated,
    readyReplicas: ready,
    availableReplicas: available,
    unavailableReplicas: Math.max(0, desired - available),
    conditions: [
      condition(
        'Available',
        available >= desired,
        available >= desired ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
        `Deployment ${available >= desired ? 'has' : 'does not have'} minimum availability.`,
        prev,
      ),
      condition(
        'Progressing',
        true,
        updated >= desired && replicas === updated ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
        `ReplicaSet "${wanted.metadata?.name}" is progressing.`,
        prev,
      ),
    ],
  };
  return { ...(current === undefined ? { create: wanted } : {}), scale, status };
}

/** A new pod for a ReplicaSet, named `<replicaset>-<5 random letters>`, bound to this node. */
export function podFor(rs: V1ReplicaSet, nodeName: string): V1Pod {
  const template = rs.spec!.template!;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(template.metadata ?? {}),
      name: `${rs.metadata!.name}-${randomSuffix()}`,
      namespace: rs.metadata!.namespace!,
      ownerReferences: [ownerRef('ReplicaSet', 'apps/v1', rs)],
    },
    spec: { ...template.spec!, nodeName },
  };
}

/** What the ReplicaSet controller should do now. */
export interface ReplicaSetPlan {
  readonly create: number;
  readonly delete: readonly V1Pod[];
  readonly status: V1ReplicaSetStatus;
}

/** Which of a ReplicaSet's pods go first when it scales down: unscheduled, not ready, then newest. */
function deletionOrder(a: V1Pod, b: V1Pod): number {
  const rank = (p: V1Pod): number => (p.status?.podIP === undefined ? 0 : isReady(p) ? 2 : 1);
  const byRank = rank(a) - rank(b);
  if (byRank !== 0) return byRank;
  const time = (p: V1Pod): number => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
  return time(b) - time(a);
}

/**
 * ReplicaSet → Pods: creates or deletes pods until the active ones match the replicas. `pending`
 * counts pods created but not yet seen in the watch cache (the "expectations" of the real controller).
 */
export function planReplicaSet(
  rs: V1ReplicaSet,
  pods: readonly V1Pod[],
  pending: number,
): ReplicaSetPlan {
  const owned = pods.filter(
    (p) => ownedBy(p, rs.metadata?.uid) && matchesSelector(rs.spec?.selector, p.metadata?.labels),
  );
  const active = owned.filter(isActive);
  const desired = rs.spec?.replicas ?? 1;
  const diff = desired - active.length - pending;
  const ready = active.filter(isReady).length;
  return {
    create: Math.max(0, diff),
    delete: diff < 0 && pending === 0 ? [...active].sort(deletionOrder).slice(0, -diff) : [],
    status: {
      replicas: active.length,
      fullyLabeledReplicas: active.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: rs.metadata?.generation ?? 1,
    },
  };
}
