import type { GatewayServiceType, PortRange } from './service-ports.js';

/** Gateway API objects as the index holds them (only the fields the resolver reads). */
export interface Meta {
  readonly name?: string;
  readonly namespace?: string;
  readonly generation?: number;
  readonly creationTimestamp?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface ObjectLike {
  readonly metadata?: Meta;
  readonly spec?: unknown;
}

/** A route/listener/gateway condition before its transition time is known. */
export interface GatewayCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration: number;
}

export type RouteKind = 'HTTPRoute' | 'GRPCRoute';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

/** What the resolver reads: the watched Gateway API objects plus Services, Secrets and Namespaces. */
export interface GatewayInputs {
  /** GatewayClasses whose spec.controllerName equals this are ours. */
  readonly controllerName: string;
  readonly gatewayClasses: readonly object[];
  readonly gateways: readonly object[];
  readonly httpRoutes: readonly object[];
  readonly grpcRoutes: readonly object[];
  readonly referenceGrants: readonly object[];
  readonly services: readonly object[];
  readonly secrets: readonly object[];
  readonly namespaces: readonly object[];
  /** Added to every listener port for the port HAProxy binds (non-root test-beds); default 0. */
  readonly portOffset?: number;
  /** The address a Gateway is served on (status.addresses), or undefined when none is assigned. */
  readonly addressOf?: (namespace: string, name: string) => string | undefined;
  /**
   * Service-per-Gateway mode: each Gateway's listener ports get their own pod ports from this
   * range (HAProxy binds those on the pod address) and a Service of this type maps them back.
   */
  readonly serviceMode?: { readonly type: GatewayServiceType; readonly range: PortRange };
}

export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

export interface ResolvedBackend {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  readonly weight: number;
  /** The weight as an HAProxy server weight (1–256), in proportion to the rule's other backends. */
  readonly serverWeight: number;
}

export interface HeaderMatch {
  readonly type: 'Exact' | 'RegularExpression';
  readonly name: string;
  readonly value: string;
}

export interface PathMatch {
  readonly type: 'Exact' | 'PathPrefix' | 'RegularExpression';
  readonly value: string;
}

/** One filter of a rule, as the spec writes it (only the supported types get here). */
export interface RouteFilter {
  readonly type:
    'RequestHeaderModifier' | 'ResponseHeaderModifier' | 'RequestRedirect' | 'URLRewrite';
  readonly [field: string]: unknown;
}

/** One rule of an attached route, with its backends resolved. */
export interface ResolvedRule {
  /** A name unique in the snapshot, safe as an HAProxy backend name. */
  readonly id: string;
  readonly kind: RouteKind;
  readonly route: NamespacedName;
  readonly index: number;
  /** Backends that resolved, with weight > 0. */
  readonly backends: readonly ResolvedBackend[];
  /** Sum of the weights of backends that did not resolve (their share answers 500). */
  readonly invalidWeight: number;
  readonly filters: readonly RouteFilter[];
}

/** One match of one rule on one hostname, in the order HAProxy must try them. */
export interface RouteEntry {
  /** An exact hostname, a `*.suffix` wildcard, or `*` for any host. */
  readonly hostname: string;
  readonly path: PathMatch;
  readonly headers: readonly HeaderMatch[];
  readonly queryParams: readonly HeaderMatch[];
  readonly method?: string;
  readonly rule: ResolvedRule;
}

export type ResolvedCertificate = NamespacedName;

/** The listeners of one Gateway that share a port: one HAProxy frontend. */
export interface GatewayFrontend {
  /** The listener port as the Gateway declares it. */
  readonly port: number;
  /** The port HAProxy binds (port + portOffset; the assigned pod port in Service mode). */
  readonly bindPort: number;
  readonly protocol: 'HTTP' | 'HTTPS';
  readonly listeners: readonly string[];
  readonly certificates: readonly ResolvedCertificate[];
  readonly entries: readonly RouteEntry[];
}

export interface ListenerStatus {
  readonly name: string;
  readonly supportedKinds: readonly { readonly group: string; readonly kind: RouteKind }[];
  readonly attachedRoutes: number;
  readonly conditions: readonly GatewayCondition[];
}

export interface ResolvedGateway extends NamespacedName {
  readonly generation: number;
  readonly className: string;
  readonly address?: string;
  readonly conditions: readonly GatewayCondition[];
  readonly listeners: readonly ListenerStatus[];
  readonly frontends: readonly GatewayFrontend[];
  /** Service-per-Gateway mode: the Service the controller keeps for this Gateway. */
  readonly service?: GatewayService;
}

/** The Service of one Gateway: its listener ports onto the Gateway's pod ports. */
export interface GatewayService {
  readonly name: string;
  readonly type: GatewayServiceType;
  readonly ports: readonly {
    readonly name: string;
    readonly port: number;
    readonly targetPort: number;
  }[];
}

export interface GatewayClassStatus {
  readonly name: string;
  readonly generation: number;
  readonly conditions: readonly GatewayCondition[];
}

export interface RouteParentStatus {
  readonly parentRef: {
    readonly group: string;
    readonly kind: string;
    readonly namespace: string;
    readonly name: string;
    readonly sectionName?: string;
    readonly port?: number;
  };
  readonly controllerName: string;
  readonly conditions: readonly GatewayCondition[];
}

export interface RouteStatus extends NamespacedName {
  readonly kind: RouteKind;
  readonly generation: number;
  /** Parents of this controller only (others' entries are left as they are). */
  readonly parents: readonly RouteParentStatus[];
}

/** The resolver's result: what the templates render and what the status says. */
export interface GatewayModel {
  readonly controllerName: string;
  readonly gatewayClasses: readonly GatewayClassStatus[];
  readonly gateways: readonly ResolvedGateway[];
  readonly routes: readonly RouteStatus[];
  /** Every rule of every accepted route, by id (each HAProxy backend is one rule). */
  readonly rules: readonly ResolvedRule[];
}
