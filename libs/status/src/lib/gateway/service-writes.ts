import { createHash } from 'node:crypto';
import { keyOf, metaOf } from './common.js';
import { GATEWAY_GROUP, type GatewayModel } from './types.js';

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const GATEWAY_LABEL = 'haproxy-haptic.org/gateway';
export const CONTROLLER_LABEL = 'haproxy-haptic.org/gateway-controller';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller: boolean;
  blockOwnerDeletion: boolean;
}

/** A Service the controller keeps for a Gateway, as it should be. */
export interface DesiredService {
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly ownerReferences: OwnerReference[];
  };
  readonly spec: {
    readonly type: string;
    readonly selector: Readonly<Record<string, string>>;
    readonly ports: {
      name: string;
      port: number;
      targetPort: number;
      protocol: 'TCP';
    }[];
  };
}

export type ServiceWrite =
  | { readonly op: 'create'; readonly service: DesiredService }
  /** `staleSelector`: selector keys the Service has and should not (nulled in the merge patch). */
  | { readonly op: 'patch'; readonly service: DesiredService; readonly staleSelector: string[] }
  | { readonly op: 'delete'; readonly namespace: string; readonly name: string };

interface ServiceLike {
  readonly metadata?: {
    readonly namespace?: string;
    readonly name?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly ownerReferences?: readonly { readonly uid?: string }[];
  };
  readonly spec?: {
    readonly type?: string;
    readonly selector?: Readonly<Record<string, string>>;
    readonly ports?: readonly {
      name?: string;
      port?: number;
      targetPort?: number | string;
      protocol?: string;
    }[];
  };
}

/** The label value that marks a Service as kept by the controller of this controllerName. */
export function controllerLabel(controllerName: string): string {
  return createHash('sha256').update(controllerName).digest('hex').slice(0, 16);
}

function desired(
  model: GatewayModel,
  gateways: readonly object[],
  selector: Readonly<Record<string, string>>,
): DesiredService[] {
  const uids = new Map(
    gateways.map((g) => {
      const m = metaOf(g) as { namespace?: string; name?: string; uid?: string };
      return [keyOf(m.namespace ?? '', m.name ?? ''), m.uid] as const;
    }),
  );
  const label = controllerLabel(model.controllerName);
  return model.gateways.flatMap((g) => {
    const uid = uids.get(keyOf(g.namespace, g.name));
    if (!g.service || !uid) return [];
    return [
      {
        metadata: {
          namespace: g.namespace,
          name: g.service.name,
          labels: { [MANAGED_BY]: 'haptic', [GATEWAY_LABEL]: g.name, [CONTROLLER_LABEL]: label },
          ownerReferences: [
            {
              apiVersion: `${GATEWAY_GROUP}/v1`,
              kind: 'Gateway',
              name: g.name,
              uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        spec: {
          type: g.service.type,
          selector: { ...selector },
          ports: g.service.ports.map((p) => ({ ...p, protocol: 'TCP' as const })),
        },
      },
    ];
  });
}

function sameMap(a: Readonly<Record<string, string>> = {}, b: Readonly<Record<string, string>>) {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a[k] === b[k]);
}

function upToDate(have: ServiceLike, want: DesiredService): boolean {
  const labels = have.metadata?.labels ?? {};
  const ports = have.spec?.ports ?? [];
  return (
    Object.entries(want.metadata.labels).every(([k, v]) => labels[k] === v) &&
    have.metadata?.ownerReferences?.length === 1 &&
    have.metadata.ownerReferences[0]?.uid === want.metadata.ownerReferences[0]?.uid &&
    have.spec?.type === want.spec.type &&
    sameMap(have.spec.selector, want.spec.selector) &&
    ports.length === want.spec.ports.length &&
    want.spec.ports.every((p, i) => {
      const h = ports[i];
      return (
        h?.name === p.name &&
        h.port === p.port &&
        h.targetPort === p.targetPort &&
        (h.protocol ?? 'TCP') === 'TCP'
      );
    })
  );
}

/**
 * Service-per-Gateway: the creates, patches and deletes that make the Services match the model
 * — none when they already do. A Service is ours when it carries this controller's label; one
 * whose Gateway is gone, no longer ours, or no longer in Service mode is deleted.
 */
export function gatewayServiceWrites(
  model: GatewayModel,
  gateways: readonly object[],
  services: readonly object[],
  selector: Readonly<Record<string, string>>,
): ServiceWrite[] {
  const label = controllerLabel(model.controllerName);
  const have = new Map(
    (services as ServiceLike[]).map((s) => [
      keyOf(s.metadata?.namespace ?? '', s.metadata?.name ?? ''),
      s,
    ]),
  );
  const want = desired(model, gateways, selector);
  const wanted = new Set(want.map((d) => keyOf(d.metadata.namespace, d.metadata.name)));
  const writes: ServiceWrite[] = [];
  for (const d of want) {
    const h = have.get(keyOf(d.metadata.namespace, d.metadata.name));
    if (!h) writes.push({ op: 'create', service: d });
    else if (!upToDate(h, d))
      writes.push({
        op: 'patch',
        service: d,
        staleSelector: Object.keys(h.spec?.selector ?? {}).filter((k) => !(k in d.spec.selector)),
      });
  }
  for (const [key, s] of have) {
    const labels = s.metadata?.labels ?? {};
    if (labels[CONTROLLER_LABEL] !== label || labels[MANAGED_BY] !== 'haptic') continue;
    if (!wanted.has(key))
      writes.push({
        op: 'delete',
        namespace: s.metadata?.namespace ?? '',
        name: s.metadata?.name ?? '',
      });
  }
  return writes;
}
