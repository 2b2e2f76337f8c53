import type { Stack } from '#testbed/stack';
import {
  hasCondition,
  staleConditions,
  until,
  type ConditionExpectation,
  type ParentRef,
} from './status-checks.js';

/**
 * Upstream's route acceptance (RouteMustHaveParents / parentsForRouteMatch, restated): for each
 * Gateway the route names, an entry of our controller whose parentRef names that Gateway (group
 * and kind Gateway, the name, the namespace — which may be left out only when the route shares
 * it — and, stricter than upstream, the sectionName and port the spec names), carrying every
 * expected condition by type, status and reason; every entry's conditions at the route's generation.
 */

const GROUP = 'gateway.networking.k8s.io';

/** A route as read back: its spec's parentRefs and its status's parents. */
export interface RouteObject {
  readonly metadata: {
    readonly namespace?: string;
    readonly name?: string;
    readonly generation?: number;
  };
  readonly spec?: { readonly parentRefs?: readonly ParentRef[] };
  readonly status?: {
    readonly parents?: readonly {
      readonly parentRef: ParentRef;
      readonly controllerName?: string;
      readonly conditions?: readonly {
        readonly type: string;
        readonly status: string;
        readonly reason: string;
        readonly observedGeneration?: number;
      }[];
    }[];
  };
}

/** What one route must show for each Gateway it names. */
export interface RouteParentsExpectation {
  readonly controller: string;
  readonly conditions: readonly ConditionExpectation[];
}

/** A condition the route reports per parent: True exactly when the reason is the type's own (Accepted, ResolvedRefs), as the API defines them. */
export const routeConditionOf = (type: string, reason: string): ConditionExpectation => ({
  type,
  status: reason === type ? 'True' : 'False',
  reason,
});

/** The spec's references to Gateways (group and kind defaulted as the CRD defaults them). */
export function gatewayRefs(route: RouteObject): ParentRef[] {
  return (route.spec?.parentRefs ?? []).filter(
    (r) => (r.group ?? GROUP) === GROUP && (r.kind ?? 'Gateway') === 'Gateway',
  );
}

/** Does the status entry's parentRef name the spec's reference (the route living in `routeNs`)? */
function sameParent(got: ParentRef, want: ParentRef, routeNs: string): boolean {
  const ns = want.namespace ?? routeNs;
  const nsOk = got.namespace === undefined ? ns === routeNs : got.namespace === ns;
  return (
    (got.group ?? GROUP) === GROUP &&
    (got.kind ?? 'Gateway') === 'Gateway' &&
    got.name === want.name &&
    nsOk &&
    got.sectionName === want.sectionName &&
    got.port === want.port
  );
}

const show = (c: readonly { type: string; status: string; reason: string }[] | undefined) =>
  (c ?? []).map((x) => `${x.type}=${x.status}/${x.reason}`).join(' ');

const refName = (r: ParentRef, routeNs: string) =>
  `${r.namespace ?? routeNs}/${r.name}${r.sectionName ? `#${r.sectionName}` : ''}${r.port ? `:${r.port}` : ''}`;

/** Why the route's status does not show `want` for every Gateway its spec names, or undefined. */
export function routeParentsMismatch(
  route: RouteObject,
  want: RouteParentsExpectation,
): string | undefined {
  const parents = route.status?.parents ?? [];
  const stale = parents.map((p) => staleConditions(route, p.conditions)).find(Boolean);
  if (stale) return stale;
  const routeNs = route.metadata.namespace ?? 'default';
  const refs = gatewayRefs(route);
  if (refs.length === 0) return 'the route names no Gateway';
  for (const ref of refs) {
    const entries = parents.filter(
      (p) => p.controllerName === want.controller && sameParent(p.parentRef, ref, routeNs),
    );
    if (entries.length === 0)
      return `no status entry of ${want.controller} for parent ${refName(ref, routeNs)}`;
    if (!entries.some((e) => want.conditions.every((c) => hasCondition(e.conditions ?? [], c))))
      return `parent ${refName(ref, routeNs)}: [${entries.map((e) => show(e.conditions)).join('; ')}], expected ${show(want.conditions.map((c) => ({ ...c, reason: c.reason ?? '*' })))}`;
  }
  return undefined;
}

/** Polls the route at `path` until every Gateway it names shows `want` (upstream's time-out, 60 s). */
export function routeParents(
  stack: Stack,
  path: string,
  want: RouteParentsExpectation,
): Promise<string | undefined> {
  return until(`${path} accepted by its parents`, async () => {
    const o = await stack.get<RouteObject>(path);
    return o ? routeParentsMismatch(o, want) : `${path} not found`;
  });
}
