import type { InvolvedObject } from './event-aggregator.js';

/** Kinds of the plurals haptic's libraries watch (a list item from the API carries no kind). */
const KINDS: Readonly<Record<string, string>> = {
  ingresses: 'Ingress',
  ingressclasses: 'IngressClass',
  services: 'Service',
  endpointslices: 'EndpointSlice',
  secrets: 'Secret',
  configmaps: 'ConfigMap',
  gateways: 'Gateway',
  gatewayclasses: 'GatewayClass',
  httproutes: 'HTTPRoute',
  grpcroutes: 'GRPCRoute',
  tlsroutes: 'TLSRoute',
  tcproutes: 'TCPRoute',
  referencegrants: 'ReferenceGrant',
};

/**
 * The Event's involvedObject for a watched object: apiVersion from the watched resource, kind
 * from the object or the plural, uid from the object (kubectl describe selects Events by it).
 */
export function involvedObject(
  resource: { readonly apiVersion: string; readonly resources: string },
  ref: { readonly namespace?: string | undefined; readonly name: string },
  object: object | undefined,
): InvolvedObject | undefined {
  const o = object as { kind?: string; metadata?: { uid?: string } } | undefined;
  const kind = o?.kind ?? KINDS[resource.resources];
  if (!kind) return undefined;
  const uid = o?.metadata?.uid;
  return {
    apiVersion: resource.apiVersion,
    kind,
    name: ref.name,
    ...(ref.namespace ? { namespace: ref.namespace } : {}),
    ...(uid ? { uid } : {}),
  };
}
