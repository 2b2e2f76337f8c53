import { byKey, condition, keyOf, metaOf, olderFirst, specOf } from './common.js';
import { hostnameRank } from './hostnames.js';
import {
  listenerState,
  markConflicts,
  type ListenerSpec,
  type ListenerState,
} from './listeners.js';
import { compareMatches } from './matches.js';
import {
  assignServicePorts,
  gatewayServiceName,
  type GatewayServiceType,
} from './service-ports.js';
import { resolveRoute, type Draft, type GatewayState, type RouteWorld } from './routes.js';
import {
  GATEWAY_GROUP,
  type GatewayClassStatus,
  type GatewayCondition,
  type GatewayFrontend,
  type GatewayInputs,
  type GatewayModel,
  type GatewayService,
  type ListenerStatus,
  type ResolvedGateway,
  type ResolvedRule,
  type RouteEntry,
  type RouteStatus,
} from './types.js';

interface ClassSpec {
  readonly controllerName: string;
  readonly parametersRef?: unknown;
}

interface GatewaySpec {
  readonly gatewayClassName: string;
  readonly listeners: readonly ListenerSpec[];
  readonly addresses?: readonly unknown[];
  readonly infrastructure?: { readonly parametersRef?: unknown };
}

function classStatus(c: object): GatewayClassStatus {
  const meta = metaOf(c);
  const gen = meta.generation ?? 0;
  const params = specOf<ClassSpec>(c).parametersRef;
  const accepted = params
    ? condition('Accepted', false, 'InvalidParameters', 'parametersRef is not supported', gen)
    : condition('Accepted', true, 'Accepted', 'handled by this controller', gen);
  return { name: meta.name ?? '', generation: gen, conditions: [accepted] };
}

/** Draft order: hostname specificity, then match precedence, then route age and name, rule, match. */
function compareDrafts(a: Draft, b: Draft): number {
  const [ha, la] = hostnameRank(a.hostname);
  const [hb, lb] = hostnameRank(b.hostname);
  if (ha !== hb) return ha - hb;
  if (la !== lb) return la - lb;
  if (a.hostname !== b.hostname) return a.hostname < b.hostname ? -1 : 1;
  return (
    compareMatches(a.match, b.match) ||
    olderFirst(a.route, b.route) ||
    a.rule.index - b.rule.index ||
    a.matchIndex - b.matchIndex
  );
}

function frontendsOf(state: GatewayState, bindPortOf: (port: number) => number): GatewayFrontend[] {
  const ports = [...new Set(state.listeners.filter((l) => l.programmed).map((l) => l.port))].sort(
    (a, b) => a - b,
  );
  return ports.map((port) => {
    const listeners = state.listeners.filter((l) => l.programmed && l.port === port);
    const entries: RouteEntry[] = [...(state.drafts.get(port) ?? [])]
      .sort(compareDrafts)
      .map((d) => ({ hostname: d.hostname, ...d.match, rule: d.rule }));
    const certs = new Map(
      listeners.flatMap((l) => l.certificates).map((c) => [keyOf(c.namespace, c.name), c]),
    );
    return {
      port,
      bindPort: bindPortOf(port),
      protocol: listeners.some((l) => l.protocol === 'HTTPS') ? 'HTTPS' : 'HTTP',
      listeners: listeners.map((l) => l.name),
      certificates: [...certs.values()],
      entries,
    };
  });
}

function gatewayConditions(
  spec: Partial<GatewaySpec>,
  listeners: readonly ListenerState[],
  address: string | undefined,
  gen: number,
): GatewayCondition[] {
  const valid = listeners.filter((l) => l.programmed).length;
  let accepted: GatewayCondition;
  if (spec.infrastructure?.parametersRef)
    accepted = condition(
      'Accepted',
      false,
      'InvalidParameters',
      'infrastructure.parametersRef is not supported',
      gen,
    );
  else if ((spec.addresses ?? []).length > 0)
    accepted = condition(
      'Accepted',
      false,
      'UnsupportedAddress',
      'spec.addresses is not supported',
      gen,
    );
  else if (valid < listeners.length)
    accepted = condition(
      'Accepted',
      valid > 0,
      'ListenersNotValid',
      `${listeners.length - valid} of ${listeners.length} listeners are not valid`,
      gen,
    );
  else accepted = condition('Accepted', true, 'Accepted', 'accepted', gen);
  const programmed =
    accepted.status !== 'True'
      ? condition('Programmed', false, 'Invalid', accepted.message, gen)
      : address === undefined
        ? condition('Programmed', false, 'AddressNotAssigned', 'no address is assigned', gen)
        : condition('Programmed', true, 'Programmed', `served on ${address}`, gen);
  return [accepted, programmed];
}

function gatewayState(
  gw: object,
  inputs: GatewayInputs,
  secrets: ReadonlyMap<string, object>,
): GatewayState {
  const meta = metaOf(gw);
  const namespace = meta.namespace ?? '';
  const generation = meta.generation ?? 0;
  const world = {
    gatewayNamespace: namespace,
    generation,
    secrets,
    grants: inputs.referenceGrants,
  };
  const listeners = markConflicts(
    (specOf<GatewaySpec>(gw).listeners ?? []).map((l) => listenerState(l, world)),
    generation,
  );
  return { namespace, name: meta.name ?? '', listeners, attached: new Map(), drafts: new Map() };
}

function listenerStatus(l: ListenerState, attached: number): ListenerStatus {
  return {
    name: l.name,
    supportedKinds: l.supportedKinds.map((kind) => ({ group: GATEWAY_GROUP, kind })),
    attachedRoutes: attached,
    conditions: l.conditions,
  };
}

function namespaceLabels(namespaces: readonly object[]) {
  const labels = new Map(namespaces.map((n) => [metaOf(n).name ?? '', metaOf(n).labels ?? {}]));
  return (ns: string) => ({ ...(labels.get(ns) ?? {}), 'kubernetes.io/metadata.name': ns });
}

/**
 * The Gateway API resolver, run once per snapshot: which routes attach to which listeners of our
 * Gateways, their rules in precedence order per Gateway frontend, and every condition the status
 * writer puts on GatewayClasses, Gateways and routes. Templates and status read this one result.
 */
export function resolveGateways(inputs: GatewayInputs): GatewayModel {
  const ours = inputs.gatewayClasses.filter(
    (c) => specOf<ClassSpec>(c).controllerName === inputs.controllerName,
  );
  const classNames = new Set(ours.map((c) => metaOf(c).name ?? ''));
  const gateways = inputs.gateways.filter((g) =>
    classNames.has(specOf<GatewaySpec>(g).gatewayClassName ?? ''),
  );
  const secrets = byKey(inputs.secrets);
  const states = new Map(
    gateways.map((g) => [
      keyOf(metaOf(g).namespace ?? '', metaOf(g).name ?? ''),
      gatewayState(g, inputs, secrets),
    ]),
  );
  const world: RouteWorld = {
    controllerName: inputs.controllerName,
    gateways: states,
    services: byKey(inputs.services),
    grants: inputs.referenceGrants,
    namespaceLabels: namespaceLabels(inputs.namespaces),
  };
  const podPorts = inputs.serviceMode
    ? assignServicePorts(
        inputs.serviceMode.range,
        new Map([...states].map(([k, st]) => [k, st.listeners.map((l) => l.port)])),
      )
    : undefined;
  const routes: RouteStatus[] = [];
  const rules: ResolvedRule[] = [];
  const each = (list: readonly object[], kind: 'HTTPRoute' | 'GRPCRoute') => {
    for (const r of [...list].sort(olderFirst)) {
      const res = resolveRoute(r, kind, world);
      if (res.status.parents.length > 0) routes.push(res.status);
      rules.push(...res.rules);
    }
  };
  each(inputs.httpRoutes, 'HTTPRoute');
  each(inputs.grpcRoutes, 'GRPCRoute');
  return {
    controllerName: inputs.controllerName,
    gatewayClasses: ours.map(classStatus),
    gateways: gateways.map((g) => resolvedGateway(g, states, inputs, podPorts)),
    routes,
    rules,
  };
}

function serviceOf(
  namespace: string,
  name: string,
  type: GatewayServiceType,
  frontends: readonly GatewayFrontend[],
): GatewayService {
  return {
    name: gatewayServiceName(namespace, name),
    type,
    ports: frontends.map((f) => ({ name: `port-${f.port}`, port: f.port, targetPort: f.bindPort })),
  };
}

function resolvedGateway(
  g: object,
  states: ReadonlyMap<string, GatewayState>,
  inputs: GatewayInputs,
  podPorts: ReadonlyMap<string, ReadonlyMap<number, number>> | undefined,
): ResolvedGateway {
  const meta = metaOf(g);
  const namespace = meta.namespace ?? '';
  const name = meta.name ?? '';
  const state = states.get(keyOf(namespace, name));
  if (!state) throw new Error(`gateway ${namespace}/${name} has no state`);
  const generation = meta.generation ?? 0;
  const address = inputs.addressOf?.(namespace, name);
  const spec = specOf<GatewaySpec>(g);
  const mine = podPorts?.get(keyOf(namespace, name));
  const offset = inputs.portOffset ?? 0;
  const frontends = frontendsOf(state, (port) => (mine ? (mine.get(port) ?? 0) : port + offset));
  return {
    namespace,
    name,
    generation,
    className: spec.gatewayClassName ?? '',
    ...(address === undefined ? {} : { address }),
    conditions: gatewayConditions(spec, state.listeners, address, generation),
    listeners: state.listeners.map((l) => listenerStatus(l, state.attached.get(l.name) ?? 0)),
    frontends,
    ...(inputs.serviceMode
      ? { service: serviceOf(namespace, name, inputs.serviceMode.type, frontends) }
      : {}),
  };
}
