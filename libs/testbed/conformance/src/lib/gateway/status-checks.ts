import { waitFor, type Stack } from '#testbed/stack';

/**
 * Status checks as the upstream suite's kubernetes helpers make them (restated, not copied):
 * a condition is found by type, status and (when given) reason; a status counts only when every
 * condition carries the object's current generation; listeners are compared by name, count,
 * supported kinds (expected ⊆ actual), attachedRoutes and conditions (expected ⊆ actual).
 */

export interface ConditionExpectation {
  readonly type: string;
  readonly status: 'True' | 'False';
  /** Any reason when omitted. */
  readonly reason?: string;
}

export interface ListenerExpectation {
  readonly name: string;
  /** Route kinds that must be among supportedKinds ([] = supportedKinds must be empty). */
  readonly kinds: readonly string[];
  readonly attachedRoutes: number;
  readonly conditions: readonly ConditionExpectation[];
}

interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly observedGeneration?: number;
}
interface ListenerStatus {
  readonly name: string;
  readonly attachedRoutes: number;
  readonly supportedKinds?: readonly { readonly group?: string; readonly kind: string }[];
  readonly conditions?: readonly Condition[];
}
/** A route's reference to its parent (spec.parentRefs[] and status.parents[].parentRef). */
export interface ParentRef {
  readonly group?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly sectionName?: string;
  readonly port?: number;
}
interface RouteParentStatus {
  readonly parentRef: ParentRef;
  readonly controllerName?: string;
  readonly conditions?: readonly Condition[];
}
interface StatusObject {
  readonly metadata: {
    readonly generation?: number;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly name?: string;
    readonly namespace?: string;
  };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly listeners?: readonly ListenerStatus[];
    readonly parents?: readonly RouteParentStatus[];
  };
}

const API = '/apis/gateway.networking.k8s.io/v1';
export const INFRA_NS = 'gateway-conformance-infra';
export const gatewayPath = (name: string, ns = INFRA_NS) =>
  `${API}/namespaces/${ns}/gateways/${name}`;
export const httpRoutePath = (name: string, ns = INFRA_NS) =>
  `${API}/namespaces/${ns}/httproutes/${name}`;
export const classPath = (name: string) => `${API}/gatewayclasses/${name}`;
const SKIP_READINESS = 'gateway-api/skip-this-for-readiness';
const GROUP = 'gateway.networking.k8s.io';

/** Why some conditions do not carry the object's generation, or undefined when all do. */
export function staleConditions(
  o: StatusObject,
  conditions: readonly Condition[] = o.status?.conditions ?? [],
): string | undefined {
  const stale = conditions.filter((c) => c.observedGeneration !== o.metadata.generation);
  if (stale.length === 0) return undefined;
  const list = stale.map((c) => `${c.type}@${String(c.observedGeneration)}`).join(', ');
  return `conditions not at generation ${String(o.metadata.generation)}: ${list}`;
}

/** Is the expected condition in the list (any reason when the expectation names none)? */
export function hasCondition(list: readonly Condition[], want: ConditionExpectation): boolean {
  return list.some(
    (c) =>
      c.type === want.type &&
      c.status === want.status &&
      (want.reason === undefined || c.reason === want.reason),
  );
}

const show = (list: readonly Condition[] | undefined) =>
  (list ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');

function listenerMismatch(want: ListenerExpectation, got: ListenerStatus): string | undefined {
  const kinds = got.supportedKinds ?? [];
  if (want.kinds.length === 0 && kinds.length > 0)
    return `listener ${want.name}: supportedKinds ${kinds.map((k) => k.kind).join(',')}, expected none`;
  for (const k of want.kinds)
    if (!kinds.some((a) => (a.group ?? GROUP) === GROUP && a.kind === k))
      return `listener ${want.name}: ${k} not in supportedKinds`;
  if (got.attachedRoutes !== want.attachedRoutes)
    return `listener ${want.name}: attachedRoutes ${got.attachedRoutes}, expected ${want.attachedRoutes}`;
  for (const c of want.conditions)
    if (!hasCondition(got.conditions ?? [], c))
      return `listener ${want.name}: no ${c.type}=${c.status}${c.reason ? `/${c.reason}` : ''} in [${show(got.conditions)}]`;
  return undefined;
}

/** Upstream's listener comparison: why the actual listeners differ from the expected ones. */
export function listenersMismatch(
  want: readonly ListenerExpectation[],
  got: readonly ListenerStatus[],
): string | undefined {
  if (want.length !== got.length)
    return `${got.length} listeners in status, expected ${want.length}`;
  for (const w of want) {
    const a = got.find((l) => l.name === w.name);
    const why = a ? listenerMismatch(w, a) : `listener ${w.name} not in status`;
    if (why) return why;
  }
  return undefined;
}

/** Polls `check` (a reason while not yet) until it holds; resolves the last reason on time-out. */
export async function until(
  what: string,
  check: () => Promise<string | undefined>,
  timeoutMs = 60_000,
): Promise<string | undefined> {
  let last = 'not checked';
  try {
    await waitFor(
      what,
      async () => {
        last = (await check()) ?? '';
        return last === '' ? true : undefined;
      },
      timeoutMs,
      250,
    );
    return undefined;
  } catch {
    return `${what}: ${last}`;
  }
}

async function read(stack: Stack, path: string): Promise<StatusObject | string> {
  return (await stack.get<StatusObject>(path)) ?? `${path} not found`;
}

/** GatewayStatusMustHaveListeners. */
export function gatewayListeners(
  stack: Stack,
  gateway: string,
  want: readonly ListenerExpectation[],
): Promise<string | undefined> {
  return until(`Gateway ${gateway} listeners`, async () => {
    const g = await read(stack, gatewayPath(gateway));
    if (typeof g === 'string') return g;
    return staleConditions(g) ?? listenersMismatch(want, g.status?.listeners ?? []);
  });
}

/** GatewayMustHaveCondition (with the latest generation). */
export function gatewayCondition(
  stack: Stack,
  gateway: string,
  want: ConditionExpectation,
): Promise<string | undefined> {
  return until(`Gateway ${gateway} ${want.type}=${want.status}`, async () => {
    const g = await read(stack, gatewayPath(gateway));
    if (typeof g === 'string') return g;
    const conds = g.status?.conditions ?? [];
    if (conds.length === 0) return 'no conditions';
    return (
      staleConditions(g) ?? (hasCondition(conds, want) ? undefined : `conditions [${show(conds)}]`)
    );
  });
}

/** GatewayMustHaveLatestConditions / GatewayClassMustHaveLatestConditions / route parents'. */
export function latestConditions(stack: Stack, path: string): Promise<string | undefined> {
  return until(`${path} conditions at the latest generation`, async () => {
    const o = await read(stack, path);
    if (typeof o === 'string') return o;
    const parents = o.status?.parents;
    if (parents) return parents.map((p) => staleConditions(o, p.conditions)).find(Boolean);
    return staleConditions(o);
  });
}

/** HTTPRouteMustHaveCondition: every parent at the latest generation, the Gateway's holds `want`. */
export function routeCondition(
  stack: Stack,
  route: string,
  gateway: string,
  want: ConditionExpectation,
  ns = INFRA_NS,
): Promise<string | undefined> {
  return until(`HTTPRoute ${route} ${want.type}=${want.status} on ${gateway}`, async () => {
    const o = await read(stack, httpRoutePath(route, ns));
    if (typeof o === 'string') return o;
    const parents = o.status?.parents ?? [];
    const stale = parents.map((p) => staleConditions(o, p.conditions)).find(Boolean);
    if (stale) return stale;
    const mine = parents.filter(
      (p) => p.parentRef.name === gateway && (p.parentRef.namespace ?? INFRA_NS) === INFRA_NS,
    );
    return mine.some((p) => hasCondition(p.conditions ?? [], want))
      ? undefined
      : `parents [${mine.map((p) => show(p.conditions)).join('; ')}]`;
  });
}

/** NamespacesMustBeReady: each Gateway (but those marked to skip) Accepted and Programmed at its generation; pods ready. */
export function namespaceReady(stack: Stack, ns = INFRA_NS): Promise<string | undefined> {
  return until(`namespace ${ns} ready`, async () => {
    const list = await stack.get<{ items: StatusObject[] }>(`${API}/namespaces/${ns}/gateways`);
    for (const g of list?.items ?? []) {
      if (g.metadata.annotations?.[SKIP_READINESS] === 'true') continue;
      const conds = g.status?.conditions ?? [];
      const why =
        staleConditions(g) ??
        (['Accepted', 'Programmed'].every((type) => hasCondition(conds, { type, status: 'True' }))
          ? undefined
          : `[${show(conds)}]`);
      if (why) return `Gateway ${g.metadata.name ?? '?'}: ${why}`;
    }
    const pods = await stack.get<{
      items: { metadata: { name: string }; status?: { conditions?: Condition[] } }[];
    }>(`/api/v1/namespaces/${ns}/pods`);
    if ((pods?.items ?? []).length === 0) return 'no pods';
    const notReady = (pods?.items ?? []).find(
      (p) => !hasCondition(p.status?.conditions ?? [], { type: 'Ready', status: 'True' }),
    );
    return notReady ? `pod ${notReady.metadata.name} not ready` : undefined;
  });
}

/** A JSON merge patch, as upstream's client.MergeFrom sends it. */
export async function mergePatch(stack: Stack, path: string, body: object): Promise<void> {
  const res = await fetch(stack.kubeSim.url + path, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`PATCH ${path}: ${res.status} ${await res.text()}`);
}

/** The object's metadata.generation. */
export async function generationOf(stack: Stack, path: string): Promise<number> {
  const o = await stack.get<StatusObject>(path);
  return o?.metadata.generation ?? 0;
}
