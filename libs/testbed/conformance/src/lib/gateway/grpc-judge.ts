import { GRPC_ECHO_SERVICE } from '#testbed/echo';

/** The three methods of the conformance echo service. */
export type GrpcMethod = 'Echo' | 'EchoTwo' | 'EchoThree';

/** gRPC status codes the cases name (numbering of the gRPC specification). */
export const GRPC_OK = 0;
export const GRPC_UNIMPLEMENTED = 12;
export const GRPC_INTERNAL = 13;

/** One expected RPC and its answer, as the upstream suite states them (`grpc.ExpectedResponse`). */
export interface GrpcExpectation {
  readonly gateway?: string;
  readonly method: GrpcMethod;
  /** The `:authority` of the call (default: the Gateway's address). */
  readonly authority?: string;
  /** Outgoing metadata; names are sent in lower case, as gRPC requires. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Expected gRPC status code (default OK). */
  readonly code?: number;
  /** For OK: the pod name prefix of the serving backend ("" accepts any). */
  readonly backend?: string;
  /** For OK: the namespace the backend reports ("" or unset: not checked, as upstream). */
  readonly namespace?: string;
}

/** What the client saw of one call: its status and, for OK, the echo's assertions. */
export interface GrpcReply {
  readonly code: number;
  readonly details: string;
  readonly assertions?: {
    readonly fullyQualifiedMethod?: string;
    readonly context?: { readonly namespace?: string; readonly pod?: string };
  };
}

/** The `:path` of a call to one method of the echo service. */
export const fullyQualified = (m: GrpcMethod) => `/${GRPC_ECHO_SERVICE}/${m}`;

/** Why one reply does not meet the expectation, or undefined when it does (upstream's rules). */
export function judgeRpc(x: GrpcExpectation, reply: GrpcReply): string | undefined {
  const code = x.code ?? GRPC_OK;
  if (reply.code !== code) return `gRPC status ${reply.code} (${reply.details}), expected ${code}`;
  if (code !== GRPC_OK) return undefined;
  const a = reply.assertions;
  if (a?.fullyQualifiedMethod !== fullyQualified(x.method))
    return `backend saw method ${a?.fullyQualifiedMethod ?? '?'}, expected ${fullyQualified(x.method)}`;
  const ns = a.context?.namespace ?? '';
  if (x.namespace && ns !== x.namespace)
    return `served from namespace ${ns || '?'}, expected ${x.namespace}`;
  const pod = a.context?.pod ?? '';
  if (!pod.startsWith(x.backend ?? '')) return `served by pod ${pod || '?'}, expected ${x.backend}`;
  return undefined;
}
