import {
  resolveBackend,
  type BackendRefSpec,
  type BackendWorld,
  type RefProblem,
} from './backends.js';
import { condition, keyOf, metaOf, selects, specOf } from './common.js';
import { effectiveHostnames } from './hostnames.js';
import { admitsNamespace, type ListenerState } from './listeners.js';
import {
  grpcMatch,
  httpMatch,
  type GrpcMatchSpec,
  type HttpMatchSpec,
  type NormalMatch,
} from './matches.js';
import {
  GATEWAY_GROUP,
  type GatewayCondition,
  type ResolvedBackend,
  type ResolvedRule,
  type RouteFilter,
  type RouteKind,
  type RouteParentStatus,
  type RouteStatus,
} from './types.js';

interface ParentRefSpec {
  readonly group?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name: string;
  readonly sectionName?: string;
  readonly port?: number;
}

interface RuleSpec {
  readonly matches?: readonly (HttpMatchSpec & GrpcMatchSpec)[];
  readonly filters?: readonly RouteFilter[];
  readonly backendRefs?: readonly BackendRefSpec[];
  readonly timeouts?: unknown;
  readonly retry?: unknown;
  readonly sessionPersistence?: unknown;
}

interface RouteSpec {
  readonly parentRefs?: readonly ParentRefSpec[];
  readonly hostnames?: readonly string[];
  readonly rules?: readonly RuleSpec[];
}

/** A Gateway of ours as the route resolver sees it. */
export interface GatewayState {
  readonly namespace: string;
  readonly name: string;
  readonly listeners: readonly ListenerState[];
  /** Accepted routes per listener name. */
  readonly attached: Map<string, number>;
  /** Match drafts per listener port (sorted into frontends by the caller). */
  readonly drafts: Map<number, Draft[]>;
}

/** One match of a rule on one hostname, before ordering. */
export interface Draft {
  readonly hostname: string;
  readonly match: NormalMatch;
  readonly rule: ResolvedRule;
  readonly route: object;
  readonly matchIndex: number;
}

export interface RouteWorld extends BackendWorld {
  readonly controllerName: string;
  readonly gateways: ReadonlyMap<string, GatewayState>;
  readonly namespaceLabels: (namespace: string) => Readonly<Record<string, string>>;
}

const FILTERS: Record<RouteKind, readonly string[]> = {
  HTTPRoute: ['RequestHeaderModifier', 'ResponseHeaderModifier', 'RequestRedirect', 'URLRewrite'],
  GRPCRoute: ['RequestHeaderModifier', 'ResponseHeaderModifier'],
};

/** The first feature of a route haptic does not implement, as a status message. */
function unsupported(kind: RouteKind, rules: readonly RuleSpec[]): string | undefined {
  for (const [i, r] of rules.entries()) {
    const at = `spec.rules[${i}]`;
    for (const [j, f] of (r.filters ?? []).entries())
      if (!FILTERS[kind].includes(f.type))
        return `${at}.filters[${j}]: filter ${f.type} is not supported`;
    for (const [j, b] of (r.backendRefs ?? []).entries())
      if ((b.filters ?? []).length > 0) return `${at}.backendRefs[${j}].filters are not supported`;
    for (const field of ['timeouts', 'retry', 'sessionPersistence'] as const)
      if (r[field] !== undefined) return `${at}.${field} is not supported`;
  }
  return undefined;
}

function resolveRules(
  kind: RouteKind,
  meta: { namespace: string; name: string },
  rules: readonly RuleSpec[],
  w: BackendWorld,
): { rules: ResolvedRule[]; problem?: RefProblem } {
  let problem: RefProblem | undefined;
  const out = rules.map((r, index): ResolvedRule => {
    const backends: ResolvedBackend[] = [];
    let invalidWeight = 0;
    for (const ref of r.backendRefs ?? []) {
      const res = resolveBackend(ref, { kind, namespace: meta.namespace }, w);
      if ('backend' in res) {
        if (res.backend.weight > 0) backends.push(res.backend);
      } else {
        problem ??= res.problem;
        invalidWeight += res.weight;
      }
    }
    const prefix = kind === 'HTTPRoute' ? 'httproute' : 'grpcroute';
    const max = Math.max(0, ...backends.map((b) => b.weight));
    for (const [i, b] of backends.entries())
      backends[i] = { ...b, serverWeight: Math.max(1, Math.round((b.weight * 256) / max)) };
    return {
      id: `${prefix}_${meta.namespace}_${meta.name}_${index}`,
      kind,
      route: meta,
      index,
      backends,
      invalidWeight,
      filters: r.filters ?? [],
    };
  });
  return problem ? { rules: out, problem } : { rules: out };
}

type Attachment =
  | { readonly ok: true; readonly listeners: readonly ListenerState[] }
  | { readonly ok: false; readonly reason: string; readonly message: string };

function attach(
  kind: RouteKind,
  routeNs: string,
  hostnames: readonly string[],
  ref: ParentRefSpec,
  gw: GatewayState,
  w: RouteWorld,
): Attachment {
  const named = gw.listeners.filter(
    (l) =>
      (ref.sectionName === undefined || l.name === ref.sectionName) &&
      (ref.port === undefined || l.port === ref.port),
  );
  if (named.length === 0)
    return {
      ok: false,
      reason: 'NoMatchingParent',
      message: 'no listener matches the sectionName/port',
    };
  const labels = w.namespaceLabels(routeNs);
  const allowed = named.filter(
    (l) =>
      l.supportedKinds.includes(kind) && admitsNamespace(l, gw.namespace, routeNs, labels, selects),
  );
  if (allowed.length === 0)
    return {
      ok: false,
      reason: 'NotAllowedByListeners',
      message: `no listener admits ${kind}s from namespace ${routeNs}`,
    };
  const matching = allowed.filter((l) => effectiveHostnames(l.hostname, hostnames).length > 0);
  if (matching.length === 0)
    return {
      ok: false,
      reason: 'NoMatchingListenerHostname',
      message: 'no listener hostname intersects the route hostnames',
    };
  return { ok: true, listeners: matching };
}

function matchesOf(kind: RouteKind, r: RuleSpec): NormalMatch[] {
  const ms = r.matches ?? [];
  const list = ms.length > 0 ? ms : [{}];
  return list.map((m) => (kind === 'HTTPRoute' ? httpMatch(m) : grpcMatch(m)));
}

function addDrafts(
  gw: GatewayState,
  listeners: readonly ListenerState[],
  route: object,
  hostnames: readonly string[],
  specRules: readonly RuleSpec[],
  rules: readonly ResolvedRule[],
  kind: RouteKind,
): void {
  for (const l of listeners) {
    gw.attached.set(l.name, (gw.attached.get(l.name) ?? 0) + 1);
    if (!l.programmed) continue;
    const list = gw.drafts.get(l.port) ?? [];
    gw.drafts.set(l.port, list);
    for (const hostname of effectiveHostnames(l.hostname, hostnames))
      for (const [i, rule] of rules.entries())
        for (const [matchIndex, match] of matchesOf(kind, specRules[i] ?? {}).entries()) {
          const dup = list.some(
            (d) => d.rule === rule && d.matchIndex === matchIndex && d.hostname === hostname,
          );
          if (!dup) list.push({ hostname, match, rule, route, matchIndex });
        }
  }
}

function parentStatus(
  ref: ParentRefSpec,
  routeNs: string,
  controllerName: string,
  conditions: GatewayCondition[],
): RouteParentStatus {
  return {
    parentRef: {
      group: ref.group ?? GATEWAY_GROUP,
      kind: ref.kind ?? 'Gateway',
      namespace: ref.namespace ?? routeNs,
      name: ref.name,
      ...(ref.sectionName === undefined ? {} : { sectionName: ref.sectionName }),
      ...(ref.port === undefined ? {} : { port: ref.port }),
    },
    controllerName,
    conditions,
  };
}

/**
 * Resolves one route against our Gateways: its status per parent of ours, and (when accepted)
 * its rules, attached to the listeners that admit it.
 */
export function resolveRoute(
  route: object,
  kind: RouteKind,
  w: RouteWorld,
): { status: RouteStatus; rules: ResolvedRule[] } {
  const meta = metaOf(route);
  const ns = meta.namespace ?? '';
  const name = meta.name ?? '';
  const gen = meta.generation ?? 0;
  const spec = specOf<RouteSpec>(route);
  const specRules = spec.rules ?? [];
  const hostnames = spec.hostnames ?? [];
  const { rules, problem } = resolveRules(kind, { namespace: ns, name }, specRules, w);
  const resolved = problem
    ? condition('ResolvedRefs', false, problem.reason, problem.message, gen)
    : condition('ResolvedRefs', true, 'ResolvedRefs', 'all references resolved', gen);
  const notSupported = unsupported(kind, specRules);
  const parents: RouteParentStatus[] = [];
  let served = false;
  for (const ref of spec.parentRefs ?? []) {
    if ((ref.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (ref.kind ?? 'Gateway') !== 'Gateway')
      continue;
    const gw = w.gateways.get(keyOf(ref.namespace ?? ns, ref.name));
    if (!gw) continue;
    const a = attach(kind, ns, hostnames, ref, gw, w);
    let accepted: GatewayCondition;
    if (!a.ok) accepted = condition('Accepted', false, a.reason, a.message, gen);
    else if (notSupported)
      accepted = condition('Accepted', false, 'UnsupportedValue', notSupported, gen);
    else {
      accepted = condition(
        'Accepted',
        true,
        'Accepted',
        `accepted by Gateway ${gw.namespace}/${gw.name}`,
        gen,
      );
      addDrafts(gw, a.listeners, route, hostnames, specRules, rules, kind);
      served = true;
    }
    parents.push(parentStatus(ref, ns, w.controllerName, [accepted, resolved]));
  }
  return {
    status: { kind, namespace: ns, name, generation: gen, parents },
    rules: served ? rules : [],
  };
}
