import { X509Certificate, createPrivateKey } from 'node:crypto';
import { condition, granted, keyOf, metaOf, type LabelSelector } from './common.js';
import {
  GATEWAY_GROUP,
  type GatewayCondition,
  type ResolvedCertificate,
  type RouteKind,
} from './types.js';

interface RouteGroupKind {
  readonly group?: string;
  readonly kind: string;
}

export interface ListenerSpec {
  readonly name: string;
  readonly hostname?: string;
  readonly port: number;
  readonly protocol: string;
  readonly tls?: {
    readonly mode?: string;
    readonly certificateRefs?: readonly {
      readonly group?: string;
      readonly kind?: string;
      readonly name: string;
      readonly namespace?: string;
    }[];
  };
  readonly allowedRoutes?: {
    readonly namespaces?: { readonly from?: string; readonly selector?: LabelSelector };
    readonly kinds?: readonly RouteGroupKind[];
  };
}

/** A listener with its checks done; attachedRoutes is counted by the route resolver. */
export interface ListenerState {
  readonly name: string;
  readonly hostname: string | undefined;
  readonly port: number;
  readonly protocol: string;
  readonly from: string;
  readonly selector: LabelSelector | undefined;
  readonly supportedKinds: readonly RouteKind[];
  readonly certificates: readonly ResolvedCertificate[];
  /** Accepted and every reference resolved: the listener is programmed into HAProxy. */
  readonly programmed: boolean;
  readonly conditions: GatewayCondition[];
}

export interface ListenerWorld {
  readonly gatewayNamespace: string;
  readonly generation: number;
  readonly secrets: ReadonlyMap<string, object>;
  readonly grants: readonly object[];
}

const SUPPORTED: Record<string, readonly RouteKind[]> = {
  HTTP: ['HTTPRoute', 'GRPCRoute'],
  HTTPS: ['HTTPRoute', 'GRPCRoute'],
};

function kindsOf(l: ListenerSpec): { kinds: RouteKind[]; invalid: string[] } {
  const supported = SUPPORTED[l.protocol] ?? [];
  const asked = l.allowedRoutes?.kinds;
  if (!asked || asked.length === 0) return { kinds: [...supported], invalid: [] };
  const kinds: RouteKind[] = [];
  const invalid: string[] = [];
  for (const k of asked) {
    const ok =
      (k.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && supported.includes(k.kind as RouteKind);
    if (ok) kinds.push(k.kind as RouteKind);
    else invalid.push(`${k.group ?? GATEWAY_GROUP}/${k.kind}`);
  }
  return { kinds, invalid };
}

/** Is a kubernetes.io/tls Secret's pair a parseable certificate and private key? */
function validPair(secret: object): boolean {
  const data = (secret as { data?: Record<string, string> }).data ?? {};
  const crt = data['tls.crt'];
  const key = data['tls.key'];
  if (!crt || !key) return false;
  try {
    new X509Certificate(Buffer.from(crt, 'base64'));
    createPrivateKey(Buffer.from(key, 'base64'));
    return true;
  } catch {
    return false;
  }
}

type CertProblem = { reason: 'InvalidCertificateRef' | 'RefNotPermitted'; message: string };

function certificatesOf(
  l: ListenerSpec,
  w: ListenerWorld,
): { certs: ResolvedCertificate[]; problem?: CertProblem } {
  const certs: ResolvedCertificate[] = [];
  const refs = l.tls?.certificateRefs ?? [];
  if (refs.length === 0)
    return { certs, problem: { reason: 'InvalidCertificateRef', message: 'no certificateRefs' } };
  for (const r of refs) {
    const ns = r.namespace ?? w.gatewayNamespace;
    const what = `certificateRef ${ns}/${r.name}`;
    if ((r.group ?? '') !== '' || (r.kind ?? 'Secret') !== 'Secret')
      return {
        certs,
        problem: {
          reason: 'InvalidCertificateRef',
          message: `${what}: only core Secrets are supported`,
        },
      };
    const ref = {
      fromGroup: GATEWAY_GROUP,
      fromKind: 'Gateway',
      fromNamespace: w.gatewayNamespace,
      toGroup: '',
      toKind: 'Secret',
      toNamespace: ns,
      toName: r.name,
    };
    if (!granted(w.grants, ref))
      return {
        certs,
        problem: { reason: 'RefNotPermitted', message: `${what}: no ReferenceGrant allows it` },
      };
    const secret = w.secrets.get(keyOf(ns, r.name));
    if (!secret)
      return {
        certs,
        problem: { reason: 'InvalidCertificateRef', message: `${what}: Secret not found` },
      };
    if (!validPair(secret))
      return {
        certs,
        problem: {
          reason: 'InvalidCertificateRef',
          message: `${what}: not a valid TLS certificate and key`,
        },
      };
    certs.push({ namespace: ns, name: r.name });
  }
  return { certs };
}

function refsCondition(
  l: ListenerSpec,
  invalidKinds: readonly string[],
  cert: CertProblem | undefined,
  gen: number,
): GatewayCondition {
  if (cert) return condition('ResolvedRefs', false, cert.reason, cert.message, gen);
  if (invalidKinds.length > 0)
    return condition(
      'ResolvedRefs',
      false,
      'InvalidRouteKinds',
      `unsupported route kinds: ${invalidKinds.join(', ')}`,
      gen,
    );
  return condition(
    'ResolvedRefs',
    true,
    'ResolvedRefs',
    `listener ${l.name}: references resolved`,
    gen,
  );
}

/** Checks one listener: protocol, TLS mode and certificates, route kinds. */
export function listenerState(l: ListenerSpec, w: ListenerWorld): ListenerState {
  const gen = w.generation;
  const protocolOk = l.protocol in SUPPORTED;
  const tlsModeOk = l.protocol !== 'HTTPS' || (l.tls?.mode ?? 'Terminate') === 'Terminate';
  const { kinds, invalid } = kindsOf(l);
  const { certs, problem } =
    l.protocol === 'HTTPS' && tlsModeOk ? certificatesOf(l, w) : { certs: [] };
  const accepted = protocolOk && tlsModeOk;
  const resolved = refsCondition(l, invalid, problem, gen);
  const programmed = accepted && resolved.status === 'True';
  const acceptedCond = !protocolOk
    ? condition(
        'Accepted',
        false,
        'UnsupportedProtocol',
        `protocol ${l.protocol} is not supported`,
        gen,
      )
    : !tlsModeOk
      ? condition(
          'Accepted',
          false,
          'UnsupportedValue',
          `tls.mode ${l.tls?.mode} is not supported on HTTPS`,
          gen,
        )
      : condition('Accepted', true, 'Accepted', `listener ${l.name} accepted`, gen);
  return {
    name: l.name,
    hostname: l.hostname,
    port: l.port,
    protocol: l.protocol,
    from: l.allowedRoutes?.namespaces?.from ?? 'Same',
    selector: l.allowedRoutes?.namespaces?.selector,
    supportedKinds: kinds,
    certificates: certs,
    programmed,
    conditions: [
      acceptedCond,
      resolved,
      programmed
        ? condition('Programmed', true, 'Programmed', `listener ${l.name} programmed`, gen)
        : condition('Programmed', false, 'Invalid', `listener ${l.name} is not valid`, gen),
      condition('Conflicted', false, 'NoConflicts', 'no conflicts', gen),
    ],
  };
}

/** Marks listeners that share a port with a different protocol or the same hostname as Conflicted. */
export function markConflicts(listeners: ListenerState[], gen: number): ListenerState[] {
  return listeners.map((l) => {
    const clash = listeners.find(
      (o) =>
        o !== l &&
        o.port === l.port &&
        (o.protocol !== l.protocol || (o.hostname ?? '') === (l.hostname ?? '')),
    );
    if (!clash) return l;
    const reason = clash.protocol !== l.protocol ? 'ProtocolConflict' : 'HostnameConflict';
    const msg = `port ${l.port} shared with listener ${clash.name}`;
    return {
      ...l,
      programmed: false,
      conditions: l.conditions.map((c) =>
        c.type === 'Conflicted'
          ? condition('Conflicted', true, reason, msg, gen)
          : c.type === 'Programmed'
            ? condition('Programmed', false, 'Invalid', msg, gen)
            : c,
      ),
    };
  });
}

/** Does a listener admit routes from `namespace` (its labels given)? */
export function admitsNamespace(
  l: ListenerState,
  gatewayNamespace: string,
  namespace: string,
  labels: Readonly<Record<string, string>>,
  selects: (s: LabelSelector, labels: Readonly<Record<string, string>>) => boolean,
): boolean {
  if (l.from === 'All') return true;
  if (l.from === 'Same') return namespace === gatewayNamespace;
  if (l.from === 'Selector') return l.selector !== undefined && selects(l.selector, labels);
  return false;
}

export const gatewayNamespaceOf = (gw: object) => metaOf(gw).namespace ?? '';
