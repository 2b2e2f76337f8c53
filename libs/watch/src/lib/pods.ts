import type { HaproxyPod } from '#events';
import type { KubeObject } from './ports.js';

interface ContainerSpec {
  readonly name?: string;
  readonly ports?: readonly { readonly containerPort?: number; readonly name?: string }[];
}

interface ContainerStatus {
  readonly name?: string;
  readonly ready?: boolean;
}

/** Names that identify the Dataplane API container when no port says so. */
const DATAPLANE_NAMES = ['dataplane', 'dataplaneapi', 'dataplane-api', 'agent'];

/**
 * The HAProxy pods ready to be configured: not terminating, with an address and a ready
 * Dataplane container (the one exposing `port`, or named like the Dataplane API), sorted.
 */
export function discoverHaproxyPods(
  pods: readonly KubeObject[],
  port: number,
): readonly HaproxyPod[] {
  const out: HaproxyPod[] = [];
  for (const pod of pods) {
    const found = dataplaneContainer(pod, port);
    const status = pod['status'] as
      { podIP?: string; containerStatuses?: ContainerStatus[] } | undefined;
    const address = status?.podIP;
    if (!found || !address || pod.metadata['deletionTimestamp']) continue;
    const ready = status.containerStatuses?.find((c) => c.name === found.name)?.ready === true;
    if (!ready) continue;
    out.push({
      namespace: pod.metadata.namespace ?? '',
      name: pod.metadata.name,
      uid: typeof pod.metadata['uid'] === 'string' ? pod.metadata['uid'] : '',
      address,
      dataplanePort: port,
      container: found.name ?? '',
    });
  }
  return out.sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1));
}

function dataplaneContainer(pod: KubeObject, port: number): ContainerSpec | undefined {
  const containers =
    (pod['spec'] as { containers?: ContainerSpec[] } | undefined)?.containers ?? [];
  return (
    containers.find((c) => c.ports?.some((p) => p.containerPort === port)) ??
    containers.find((c) => DATAPLANE_NAMES.includes(c.name ?? ''))
  );
}

/** The label selector string of a podSelector (matchLabels and matchExpressions). */
export function podSelectorString(selector: {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[];
  }[];
}): string {
  const terms = Object.entries(selector.matchLabels).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(',');
    switch (e.operator) {
      case 'In':
        terms.push(`${e.key} in (${values})`);
        break;
      case 'NotIn':
        terms.push(`${e.key} notin (${values})`);
        break;
      case 'Exists':
        terms.push(e.key);
        break;
      case 'DoesNotExist':
        terms.push(`!${e.key}`);
        break;
    }
  }
  return terms.join(',');
}
