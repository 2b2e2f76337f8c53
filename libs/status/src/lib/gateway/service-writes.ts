import { createHash } from 'node:crypto';
import { keyOf } from './common.js';
import type { GatewayModel } from './types.js';

export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const CONTROLLER_LABEL = 'haproxy-haptic.org/gateway-controller';
/** On a Service kept for a Gateway: the Gateway's "namespace/name". */
export const GATEWAY_ANNOTATION = 'haproxy-haptic.org/gateway';

/** A Service the controller keeps for a Gateway, as it should be. */
export interface DesiredService {
  readonly metadata: {
    readonly namespace: string;
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
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
    readonly annotations?: Readonly<Record<string, string>>;
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

/** Whether a Service is one this controller keeps for a Gateway. */
export function isOurs(svc: object, controllerName: string): boolean {
  const labels = (svc as ServiceLike).metadata?.labels ?? {};
  return (
    labels[MANAGED_BY] === 'haptic' && labels[CONTROLLER_LABEL] === controllerLabel(controllerName)
  );
}

/** The Gateway ("namespace/name") a Service of ours is kept for. */
export function gatewayOf(svc: object): string | undefined {
  return (svc as ServiceLike).metadata?.annotations?.[GATEWAY_ANNOTATION];
}

function desired(
  model: GatewayModel,
  namespace: string,
  selector: Readonly<Record<string, string>>,
): DesiredService[] {
  const label = controllerLabel(model.controllerName);
  return model.gateways.flatMap((g) =>
    g.service
      ? [
          {
            metadata: {
              namespace,
              name: g.service.name,
              labels: { [MANAGED_BY]: 'haptic', [CONTROLLER_LABEL]: label },
              annotations: { [GATEWAY_ANNOTATION]: keyOf(g.namespace, g.name) },
            },
            spec: {
              type: g.service.type,
              selector: { ...selector },
              ports: g.service.ports.map((p) => ({ ...p, protocol: 'TCP' as const })),
            },
          },
        ]
      : [],
  );
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
    gatewayOf(have) === want.metadata.annotations[GATEWAY_ANNOTATION] &&
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
 * Service-per-Gateway: the creates, patches and deletes that make the Services in `namespace`
 * (the HAProxy pods', so that `selector` finds them) match the model — none when they already
 * do. A Service is ours when it carries this controller's labels; one of ours whose Gateway is
 * gone, no longer ours, or no longer in Service mode is deleted; others are never touched.
 */
export function gatewayServiceWrites(
  model: GatewayModel,
  namespace: string,
  services: readonly object[],
  selector: Readonly<Record<string, string>>,
): ServiceWrite[] {
  const have = new Map(
    (services as ServiceLike[]).map((s) => [
      keyOf(s.metadata?.namespace ?? '', s.metadata?.name ?? ''),
      s,
    ]),
  );
  const want = desired(model, namespace, selector);
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
  for (const [key, s] of have)
    if (isOurs(s, model.controllerName) && !wanted.has(key))
      writes.push({
        op: 'delete',
        namespace: s.metadata?.namespace ?? '',
        name: s.metadata?.name ?? '',
      });
  return writes;
}
