import type {
  DiscoveryV1EndpointPort,
  V1Endpoint,
  V1EndpointSlice,
  V1Pod,
  V1Service,
} from '@kubernetes/client-node';
import { matchesMap, shortHash, stableJson } from './selectors.js';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
/** The value the real EndpointSlice controller writes; node-sim plays that controller. */
export const MANAGED_BY = 'endpointslice-controller.k8s.io';

/** A pod as the EndpointSlice controller sees it: address and conditions. */
export interface PodEndpoint {
  readonly pod: V1Pod;
  readonly ip: string;
  /** Ready condition (false while terminating). */
  readonly ready: boolean;
  /** Ready ignoring termination. */
  readonly serving: boolean;
  readonly terminating: boolean;
  readonly nodeName: string;
}

/** What to write so the Service's EndpointSlices match its pods. */
export interface SlicePlan {
  readonly create: readonly V1EndpointSlice[];
  readonly update: readonly V1EndpointSlice[];
  readonly delete: readonly V1EndpointSlice[];
}

function resolvePorts(service: V1Service, pod: V1Pod): DiscoveryV1EndpointPort[] | undefined {
  const out: DiscoveryV1EndpointPort[] = [];
  for (const sp of service.spec?.ports ?? []) {
    const target = sp.targetPort ?? sp.port;
    let port: number | undefined;
    if (typeof target === 'number' || /^\d+$/.test(String(target))) port = Number(target);
    else {
      for (const c of pod.spec?.containers ?? []) {
        port ??= c.ports?.find(
          (p) => p.name === target && (p.protocol ?? 'TCP') === (sp.protocol ?? 'TCP'),
        )?.containerPort;
      }
    }
    // A named port the pod does not have leaves the pod out of the slice for it, as upstream does.
    if (port === undefined) return undefined;
    out.push({
      ...(sp.name === undefined ? { name: '' } : { name: sp.name }),
      port,
      protocol: sp.protocol ?? 'TCP',
      ...(sp.appProtocol === undefined ? {} : { appProtocol: sp.appProtocol }),
    });
  }
  return out;
}

function endpointOf(e: PodEndpoint, publishNotReady: boolean): V1Endpoint {
  return {
    addresses: [e.ip],
    conditions: {
      ready: publishNotReady || e.ready,
      serving: publishNotReady || e.serving,
      terminating: e.terminating,
    },
    nodeName: e.nodeName,
    targetRef: {
      kind: 'Pod',
      namespace: e.pod.metadata?.namespace ?? '',
      name: e.pod.metadata?.name ?? '',
      uid: e.pod.metadata?.uid ?? '',
    },
  };
}

/** True when the Service's endpoints are kept by this controller (it has a selector and is not ExternalName). */
export function selectsPods(service: V1Service): boolean {
  return (
    Object.keys(service.spec?.selector ?? {}).length > 0 && service.spec?.type !== 'ExternalName'
  );
}

/** The slices a Service should have: one per distinct resolved port list, endpoints sorted by address. */
export function desiredSlices(
  service: V1Service,
  endpoints: readonly PodEndpoint[],
): V1EndpointSlice[] {
  const selector = service.spec?.selector ?? {};
  const groups = new Map<string, { ports: DiscoveryV1EndpointPort[]; endpoints: V1Endpoint[] }>();
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  for (const e of endpoints) {
    if (
      e.pod.metadata?.namespace !== service.metadata?.namespace ||
      !matchesMap(selector, e.pod.metadata?.labels)
    )
      continue;
    const ports = resolvePorts(service, e.pod);
    if (ports === undefined) continue;
    const key = stableJson(ports);
    const group = groups.get(key) ?? { ports, endpoints: [] };
    group.endpoints.push(endpointOf(e, publishNotReady));
    groups.set(key, group);
  }
  if (groups.size === 0) groups.set('', { ports: [], endpoints: [] });
  const name = service.metadata?.name ?? '';
  return [...groups.entries()].map(([key, g]) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${name}-${shortHash([service.metadata?.uid, key], 5)}`,
      namespace: service.metadata?.namespace ?? 'default',
      labels: { [SERVICE_NAME_LABEL]: name, [MANAGED_BY_LABEL]: MANAGED_BY },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name,
          uid: service.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: 'IPv4',
    endpoints: g.endpoints.sort((a, b) => (a.addresses[0]! < b.addresses[0]! ? -1 : 1)),
    ports: g.ports,
  }));
}

const content = (s: V1EndpointSlice): string =>
  stableJson({
    labels: s.metadata?.labels,
    endpoints: s.endpoints ?? [],
    ports: s.ports ?? [],
    addressType: s.addressType,
  });

/** `namespace/name` of the Service an EndpointSlice belongs to (by its service-name label). */
export const sliceServiceKey = (s: V1EndpointSlice): string =>
  `${s.metadata?.namespace ?? ''}/${s.metadata?.labels?.[SERVICE_NAME_LABEL] ?? ''}`;

/** `namespace/name` of a Service. */
export const serviceKey = (svc: V1Service): string =>
  `${svc.metadata?.namespace ?? ''}/${svc.metadata?.name ?? ''}`;

/**
 * EndpointSlices grouped by their Service, so one pass over every Service reads only its own
 * slices (a scan of every slice per Service is quadratic: 10,000 of each is 10^8 steps a pass).
 */
export function slicesByService(
  slices: readonly V1EndpointSlice[],
): ReadonlyMap<string, readonly V1EndpointSlice[]> {
  const out = new Map<string, V1EndpointSlice[]>();
  for (const s of slices) {
    const key = sliceServiceKey(s);
    const group = out.get(key);
    if (group) group.push(s);
    else out.set(key, [s]);
  }
  return out;
}

/** Compares desired with existing slices (those labelled as this controller's for the Service). */
export function planSlices(
  service: V1Service,
  endpoints: readonly PodEndpoint[],
  existing: readonly V1EndpointSlice[],
): SlicePlan {
  const mine = existing.filter(
    (s) =>
      s.metadata?.namespace === service.metadata?.namespace &&
      s.metadata?.labels?.[SERVICE_NAME_LABEL] === service.metadata?.name &&
      s.metadata?.labels?.[MANAGED_BY_LABEL] === MANAGED_BY,
  );
  const desired = selectsPods(service) ? desiredSlices(service, endpoints) : [];
  const create: V1EndpointSlice[] = [];
  const update: V1EndpointSlice[] = [];
  for (const want of desired) {
    const have = mine.find((s) => s.metadata?.name === want.metadata?.name);
    if (have === undefined) create.push(want);
    else if (content(have) !== content(want))
      update.push({
        ...want,
        metadata: {
          ...have.metadata,
          ...want.metadata,
          resourceVersion: have.metadata?.resourceVersion ?? '',
        },
      });
  }
  const names = new Set(desired.map((d) => d.metadata?.name));
  return { create, update, delete: mine.filter((s) => !names.has(s.metadata?.name)) };
}
