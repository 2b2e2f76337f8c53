import { poolAddresses } from './addresses.js';
import { keyOf, metaOf } from './common.js';
import { resolveGateways } from './resolve.js';
import { gatewayOf, isOurs } from './service-writes.js';
import {
  parsePortRange,
  SERVICE_TYPES,
  type GatewayServiceType,
  type PortRange,
} from './service-ports.js';
import type { GatewayInputs, GatewayModel } from './types.js';

/** The watched-resource names the resolver reads (a config watches those it needs). */
export const GATEWAY_WATCHED = {
  gatewayClasses: 'gatewayclasses',
  gateways: 'gateways',
  httpRoutes: 'httproutes',
  grpcRoutes: 'grpcroutes',
  referenceGrants: 'referencegrants',
  services: 'services',
  secrets: 'secrets',
  namespaces: 'namespaces',
} as const;

export const DEFAULT_SERVICE_PORT_RANGE = '20000-29999';

export const DEFAULT_GATEWAY_CONTROLLER = 'haproxy-haptic.org/gateway-controller';

/** The resolver's settings, read from templatingSettings.extraContext. */
export interface GatewaySettings {
  /** `gateway_controller_name`: GatewayClasses naming it are ours. */
  readonly controllerName: string;
  /** `gateway_port_offset`: added to every listener port HAProxy binds (0 in a cluster). */
  readonly portOffset: number;
  /** `gateway_address_pool`: IPv4 CIDR a Gateway's own address is taken from. */
  readonly addressPool?: string;
  /** `gateway_addresses`: fixed address per "namespace/name" (wins over the pool). */
  readonly addresses: Readonly<Record<string, string>>;
  /**
   * `gateway_service_type` (`ClusterIP`, `NodePort`, `LoadBalancer`; "" = off): Service per
   * Gateway, each Gateway's listeners on their own pod ports from `gateway_service_port_range`.
   */
  readonly services?: { readonly type: GatewayServiceType; readonly range: PortRange };
}

function servicesSetting(extra: Readonly<Record<string, unknown>>): GatewaySettings['services'] {
  const type = stringOr(extra['gateway_service_type'], '', 'gateway_service_type');
  if (!type) return undefined;
  if (!(SERVICE_TYPES as readonly string[]).includes(type))
    throw new TypeError(
      `extraContext.gateway_service_type "${type}" must be one of ${SERVICE_TYPES.join(', ')} or ""`,
    );
  const range = stringOr(
    extra['gateway_service_port_range'],
    DEFAULT_SERVICE_PORT_RANGE,
    'gateway_service_port_range',
  );
  return { type: type as GatewayServiceType, range: parsePortRange(range) };
}

interface ServiceLike {
  readonly spec?: { readonly clusterIP?: string };
  readonly status?: {
    readonly loadBalancer?: { readonly ingress?: readonly { ip?: string; hostname?: string }[] };
  };
}

/** A Service's address as clients reach it: its first LoadBalancer ingress, else its cluster IP. */
export function serviceAddress(svc: object | undefined): string | undefined {
  const s = svc as ServiceLike | undefined;
  const lb = s?.status?.loadBalancer?.ingress?.[0];
  const ip = lb?.ip || lb?.hostname || s?.spec?.clusterIP;
  return ip && ip !== 'None' ? ip : undefined;
}

function stringOr(v: unknown, fallback: string, field: string): string {
  if (v === undefined || v === null || v === '') return fallback;
  if (typeof v !== 'string') throw new TypeError(`extraContext.${field} must be a string`);
  return v;
}

/** Parses the settings; a wrong type is an error naming the extraContext field. */
export function gatewaySettings(extra: Readonly<Record<string, unknown>>): GatewaySettings {
  const offset = extra['gateway_port_offset'] ?? 0;
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0 || offset > 60000)
    throw new TypeError('extraContext.gateway_port_offset must be an integer from 0 to 60000');
  const addresses = extra['gateway_addresses'] ?? {};
  if (typeof addresses !== 'object' || Array.isArray(addresses) || addresses === null)
    throw new TypeError('extraContext.gateway_addresses must map "namespace/name" to an address');
  for (const [k, v] of Object.entries(addresses))
    if (typeof v !== 'string')
      throw new TypeError(`extraContext.gateway_addresses["${k}"] must be a string`);
  const pool = stringOr(extra['gateway_address_pool'], '', 'gateway_address_pool');
  const services = servicesSetting(extra);
  return {
    controllerName: stringOr(
      extra['gateway_controller_name'],
      DEFAULT_GATEWAY_CONTROLLER,
      'gateway_controller_name',
    ),
    portOffset: offset,
    ...(pool ? { addressPool: pool } : {}),
    addresses: addresses as Record<string, string>,
    ...(services ? { services } : {}),
  };
}

/**
 * The resolver over a snapshot: what the `gateway` template variable holds and what the status
 * writer writes, from the same objects and settings. `list` reads one watched resource; names the
 * config does not watch read as empty.
 */
export function gatewayModelOf(
  list: (watched: string) => readonly object[],
  watched: readonly string[],
  extra: Readonly<Record<string, unknown>>,
): GatewayModel {
  const s = gatewaySettings(extra);
  const read = (name: string) => (watched.includes(name) ? list(name) : []);
  const w = GATEWAY_WATCHED;
  const gateways = read(w.gateways);
  const pool = s.addressPool
    ? poolAddresses(
        s.addressPool,
        gateways.map((g) => keyOf(metaOf(g).namespace ?? '', metaOf(g).name ?? '')),
      )
    : undefined;
  const services = read(w.services);
  const kept = new Map<string, object>();
  for (const svc of services)
    if (isOurs(svc, s.controllerName)) kept.set(gatewayOf(svc) ?? '', svc);
  const addressOf = s.services
    ? (ns: string, name: string) => serviceAddress(kept.get(keyOf(ns, name)))
    : (ns: string, name: string) => s.addresses[keyOf(ns, name)] ?? pool?.get(keyOf(ns, name));
  const inputs: GatewayInputs = {
    controllerName: s.controllerName,
    gatewayClasses: read(w.gatewayClasses),
    gateways,
    httpRoutes: read(w.httpRoutes),
    grpcRoutes: read(w.grpcRoutes),
    referenceGrants: read(w.referenceGrants),
    services,
    secrets: read(w.secrets),
    namespaces: read(w.namespaces),
    portOffset: s.portOffset,
    addressOf,
    ...(s.services ? { serviceMode: s.services } : {}),
  };
  return resolveGateways(inputs);
}
