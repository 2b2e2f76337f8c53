import { sameEntries, type LoadBalancerIngress } from './addresses.js';

/** An Ingress as the index holds it: name, namespace and its current status entries. */
interface IngressLike {
  readonly metadata?: { readonly name?: string; readonly namespace?: string };
  readonly status?: {
    readonly loadBalancer?: { readonly ingress?: readonly LoadBalancerIngress[] };
  };
}

/** One Ingress status write: the entries it should hold ([] clears it). */
export interface IngressStatusWrite {
  readonly namespace: string;
  readonly name: string;
  readonly entries: readonly LoadBalancerIngress[];
}

export const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;

function ref(o: object): {
  namespace: string;
  name: string;
  current: readonly LoadBalancerIngress[];
} {
  const i = o as IngressLike;
  return {
    namespace: i.metadata?.namespace ?? '',
    name: i.metadata?.name ?? '',
    current: i.status?.loadBalancer?.ingress ?? [],
  };
}

/**
 * The writes that bring Ingress status in line: every served Ingress shows `entries`; an Ingress
 * no longer served is cleared when this controller published to it (`ours`) or it shows exactly
 * our entries — an Ingress of another controller is never touched. Nothing is written when the
 * status already says it.
 */
export function ingressStatusWrites(
  served: readonly object[],
  all: readonly object[],
  entries: readonly LoadBalancerIngress[],
  ours: ReadonlySet<string>,
): IngressStatusWrite[] {
  const writes: IngressStatusWrite[] = [];
  const servedKeys = new Set<string>();
  for (const o of served) {
    const r = ref(o);
    servedKeys.add(keyOf(r.namespace, r.name));
    if (!sameEntries(r.current, entries))
      writes.push({ namespace: r.namespace, name: r.name, entries });
  }
  for (const o of all) {
    const r = ref(o);
    const key = keyOf(r.namespace, r.name);
    if (servedKeys.has(key) || r.current.length === 0) continue;
    if (ours.has(key) || (entries.length > 0 && sameEntries(r.current, entries)))
      writes.push({ namespace: r.namespace, name: r.name, entries: [] });
  }
  return writes;
}
