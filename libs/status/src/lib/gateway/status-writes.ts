import { isIP } from 'node:net';
import { keyOf, metaOf } from './common.js';
import { type GatewayCondition, type GatewayModel, type RouteKind } from './types.js';

/** A condition as the API stores it. */
export interface StoredCondition extends GatewayCondition {
  readonly lastTransitionTime: string;
}

export type StatusKind = 'GatewayClass' | 'Gateway' | RouteKind;

/** One status write: the whole `status` of one object (a merge patch replaces its lists). */
export interface GatewayStatusWrite {
  readonly kind: StatusKind;
  readonly namespace: string;
  readonly name: string;
  readonly status: Record<string, unknown>;
}

/** The objects as the index holds them (with their current status), by kind. */
export interface GatewayObjects {
  readonly gatewayClasses: readonly object[];
  readonly gateways: readonly object[];
  readonly httpRoutes: readonly object[];
  readonly grpcRoutes: readonly object[];
}

interface WithStatus {
  readonly status?: {
    readonly conditions?: readonly StoredCondition[];
    readonly parents?: readonly {
      readonly controllerName?: string;
      readonly conditions?: readonly StoredCondition[];
    }[];
    readonly listeners?: readonly {
      readonly name?: string;
      readonly conditions?: readonly StoredCondition[];
    }[];
  };
}

/** Conditions with their transition time: kept from `old` when the status did not change. */
function timed(
  desired: readonly GatewayCondition[],
  old: readonly StoredCondition[] | undefined,
  now: string,
): StoredCondition[] {
  return desired.map((c) => {
    const prev = old?.find((o) => o.type === c.type);
    return {
      ...c,
      lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now,
    };
  });
}

/** JSON with sorted keys and no transition times: what "unchanged" is judged on. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (k, x: unknown) => {
    if (k === 'lastTransitionTime') return undefined;
    if (x && typeof x === 'object' && !Array.isArray(x))
      return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return x;
  });
}

function find(list: readonly object[], namespace: string, name: string): WithStatus | undefined {
  return list.find(
    (o) => keyOf(metaOf(o).namespace ?? '', metaOf(o).name ?? '') === keyOf(namespace, name),
  );
}

function push(
  out: GatewayStatusWrite[],
  current: WithStatus | undefined,
  write: GatewayStatusWrite,
): void {
  if (!current) return;
  const now = canonical(current.status ?? {});
  if (canonical(write.status) !== now) out.push(write);
}

function classWrites(
  model: GatewayModel,
  objects: GatewayObjects,
  now: string,
  out: GatewayStatusWrite[],
): void {
  for (const c of model.gatewayClasses) {
    const current = find(objects.gatewayClasses, '', c.name);
    const status = {
      ...(current?.status ?? {}),
      conditions: timed(c.conditions, current?.status?.conditions, now),
    };
    push(out, current, { kind: 'GatewayClass', namespace: '', name: c.name, status });
  }
}

function gatewayWrites(
  model: GatewayModel,
  objects: GatewayObjects,
  now: string,
  out: GatewayStatusWrite[],
): void {
  for (const g of model.gateways) {
    const current = find(objects.gateways, g.namespace, g.name);
    const oldListeners = current?.status?.listeners ?? [];
    const status = {
      addresses: g.address
        ? [{ type: isIP(g.address) ? 'IPAddress' : 'Hostname', value: g.address }]
        : [],
      conditions: timed(g.conditions, current?.status?.conditions, now),
      listeners: g.listeners.map((l) => ({
        name: l.name,
        supportedKinds: l.supportedKinds,
        attachedRoutes: l.attachedRoutes,
        conditions: timed(
          l.conditions,
          oldListeners.find((o) => o.name === l.name)?.conditions,
          now,
        ),
      })),
    };
    push(out, current, { kind: 'Gateway', namespace: g.namespace, name: g.name, status });
  }
}

function routeWrites(
  model: GatewayModel,
  objects: GatewayObjects,
  now: string,
  out: GatewayStatusWrite[],
): void {
  const ours = model.controllerName;
  const lists: Record<RouteKind, readonly object[]> = {
    HTTPRoute: objects.httpRoutes,
    GRPCRoute: objects.grpcRoutes,
  };
  const done = new Set<string>();
  for (const r of model.routes) {
    done.add(`${r.kind}/${keyOf(r.namespace, r.name)}`);
    const current = find(lists[r.kind], r.namespace, r.name);
    const old = current?.status?.parents ?? [];
    const others = old.filter((p) => p.controllerName !== ours);
    const mine = old.filter((p) => p.controllerName === ours);
    const parents = r.parents.map((p) => ({
      ...p,
      conditions: timed(
        p.conditions,
        mine.find(
          (m) => canonical((m as { parentRef?: unknown }).parentRef) === canonical(p.parentRef),
        )?.conditions,
        now,
      ),
    }));
    push(out, current, {
      kind: r.kind,
      namespace: r.namespace,
      name: r.name,
      status: { parents: [...others, ...parents] },
    });
  }
  // routes that no longer name a Gateway of ours lose our entries
  for (const kind of ['HTTPRoute', 'GRPCRoute'] as const)
    for (const o of lists[kind]) {
      const meta = metaOf(o);
      const key = `${kind}/${keyOf(meta.namespace ?? '', meta.name ?? '')}`;
      const parents = (o as WithStatus).status?.parents ?? [];
      if (done.has(key) || !parents.some((p) => p.controllerName === ours)) continue;
      out.push({
        kind,
        namespace: meta.namespace ?? '',
        name: meta.name ?? '',
        status: { parents: parents.filter((p) => p.controllerName !== ours) },
      });
    }
}

/**
 * The status writes that bring GatewayClasses, Gateways and routes in line with the resolver's
 * model: nothing for an object whose status already says it (transition times aside); other
 * controllers' route parent entries are kept.
 */
export function gatewayStatusWrites(
  model: GatewayModel,
  objects: GatewayObjects,
  now: string,
): GatewayStatusWrite[] {
  const out: GatewayStatusWrite[] = [];
  classWrites(model, objects, now, out);
  gatewayWrites(model, objects, now, out);
  routeWrites(model, objects, now, out);
  return out;
}
