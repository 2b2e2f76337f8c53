import { granted, keyOf } from './common.js';
import { GATEWAY_GROUP, type ResolvedBackend, type RouteKind } from './types.js';

export interface BackendRefSpec {
  readonly group?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly port?: number;
  readonly weight?: number;
  readonly filters?: readonly unknown[];
}

export type RefProblem = {
  readonly reason: 'InvalidKind' | 'RefNotPermitted' | 'BackendNotFound' | 'UnsupportedValue';
  readonly message: string;
};

export interface BackendWorld {
  readonly services: ReadonlyMap<string, object>;
  readonly grants: readonly object[];
}

interface ServiceLike {
  readonly spec?: { readonly ports?: readonly { readonly port?: number }[] };
}

/** Resolves one backendRef of a route: a Service of the route's namespace or a granted one. */
export function resolveBackend(
  ref: BackendRefSpec,
  route: { kind: RouteKind; namespace: string },
  w: BackendWorld,
): { backend: ResolvedBackend } | { problem: RefProblem; weight: number } {
  const ns = ref.namespace ?? route.namespace;
  const weight = ref.weight ?? 1;
  const what = `backendRef ${ns}/${ref.name}`;
  const fail = (reason: RefProblem['reason'], message: string) => ({
    problem: { reason, message: `${what}: ${message}` },
    weight,
  });
  if ((ref.group ?? '') !== '' || (ref.kind ?? 'Service') !== 'Service')
    return fail('InvalidKind', `kind ${ref.group ?? ''}/${ref.kind ?? ''} is not supported`);
  const allowed = granted(w.grants, {
    fromGroup: GATEWAY_GROUP,
    fromKind: route.kind,
    fromNamespace: route.namespace,
    toGroup: '',
    toKind: 'Service',
    toNamespace: ns,
    toName: ref.name,
  });
  if (!allowed) return fail('RefNotPermitted', 'no ReferenceGrant allows it');
  const svc = w.services.get(keyOf(ns, ref.name)) as ServiceLike | undefined;
  if (!svc) return fail('BackendNotFound', 'Service not found');
  if (ref.port === undefined) return fail('UnsupportedValue', 'port is required');
  if (!(svc.spec?.ports ?? []).some((p) => p.port === ref.port))
    return fail('BackendNotFound', `Service has no port ${ref.port}`);
  return {
    backend: { namespace: ns, name: ref.name, port: ref.port, weight, serverWeight: weight },
  };
}
