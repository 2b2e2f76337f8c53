import type { GatewayCase } from './cases.js';
import { GRPC_UNIMPLEMENTED, type GrpcExpectation } from './grpc-judge.js';

const INFRA = 'gateway-conformance-infra';

/**
 * One upstream GRPCRoute test as data: a Gateway case (its status checks apply as they are) whose
 * traffic is RPCs, not HTTP requests; `weights` are judged over 500 `Echo` calls.
 */
export interface GrpcCase extends GatewayCase {
  readonly profile: 'GATEWAY-GRPC';
  readonly requests: readonly [];
  readonly rpcs: readonly GrpcExpectation[];
}

const v = (n: number, extra: Partial<GrpcExpectation> = {}): GrpcExpectation => ({
  method: 'Echo',
  backend: `grpc-infra-backend-v${n}`,
  namespace: INFRA,
  ...extra,
});
const unimplemented = (extra: Partial<GrpcExpectation> = {}): GrpcExpectation => ({
  method: 'Echo',
  code: GRPC_UNIMPLEMENTED,
  ...extra,
});
const md = (metadata: Record<string, string>) => ({ metadata });
const HOSTNAMES = 'grpcroute-listener-hostname-matching';
/** The `:authority` upstream's header-modifier test sends (the service name). */
const GRPC_AUTHORITY = 'gateway_api_conformance.echo_basic.grpcecho.GrpcEcho';

/** The GATEWAY-GRPC core tests of EXPECTATIONS.md §3, restated from the upstream Go tests. */
export const GRPC_CASES: readonly GrpcCase[] = [
  {
    name: 'GRPCExactMethodMatching',
    file: 'grpcroute-exact-method-matching.yaml',
    profile: 'GATEWAY-GRPC',
    level: 'core',
    requests: [],
    routes: [{ kind: 'GRPCRoute', name: 'exact-matching' }],
    rpcs: [v(1), v(2, { method: 'EchoTwo' }), unimplemented({ method: 'EchoThree' })],
  },
  {
    name: 'GRPCRouteHeaderMatching',
    file: 'grpcroute-header-matching.yaml',
    profile: 'GATEWAY-GRPC',
    level: 'core',
    requests: [],
    routes: [{ kind: 'GRPCRoute', name: 'grpc-header-matching' }],
    rpcs: [
      v(1, md({ Version: 'one' })),
      v(2, md({ Version: 'two' })),
      v(1, md({ Version: 'two', Color: 'orange' })),
      v(2, md({ Version: 'two', Color: 'blue' })),
      unimplemented(md({ Color: 'orange' })),
      unimplemented(md({ 'Some-Other-Header': 'one' })),
      v(1, md({ Color: 'blue' })),
      v(1, md({ Color: 'green' })),
      v(2, md({ Color: 'red' })),
      v(2, md({ Color: 'yellow' })),
      unimplemented(md({ Color: 'purple' })),
    ],
  },
  {
    name: 'GRPCRouteListenerHostnameMatching',
    file: 'grpcroute-listener-hostname-matching.yaml',
    profile: 'GATEWAY-GRPC',
    level: 'core',
    requests: [],
    gateways: [HOSTNAMES],
    routes: ['backend-v1', 'backend-v2', 'backend-v3'].map((name) => ({
      kind: 'GRPCRoute' as const,
      name,
    })),
    rpcs: [
      ...(
        [
          ['bar.com', 1],
          ['foo.bar.com', 2],
          ['baz.bar.com', 3],
          ['boo.bar.com', 3],
          ['multiple.prefixes.bar.com', 3],
          ['multiple.prefixes.foo.com', 3],
        ] as const
      ).map(([authority, n]) => v(n, { authority, gateway: HOSTNAMES })),
      unimplemented({ authority: 'foo.com', gateway: HOSTNAMES }),
      unimplemented({ authority: 'no.matching.host', gateway: HOSTNAMES }),
    ],
  },
  {
    name: 'GRPCRouteWeight',
    file: 'grpcroute-weight.yaml',
    profile: 'GATEWAY-GRPC',
    level: 'core',
    requests: [],
    routes: [{ kind: 'GRPCRoute', name: 'weighted-backends' }],
    rpcs: [{ method: 'Echo', backend: '', namespace: INFRA }],
    weights: {
      'grpc-infra-backend-v1': 70,
      'grpc-infra-backend-v2': 30,
      'grpc-infra-backend-v3': 0,
    },
  },
  // Extended. Upstream judges these by status, method, pod and namespace only: it does not compare
  // the echoed metadata (its header-modifier manifest repeats one match in three rules, so only
  // the first rule's filter can apply), and so neither does this runner.
  {
    name: 'GRPCRouteRequestHeaderModifier',
    file: 'grpcroute-request-header-modifier.yaml',
    profile: 'GATEWAY-GRPC',
    level: 'extended',
    requests: [],
    routes: [{ kind: 'GRPCRoute', name: 'grpc-request-header-modifier' }],
    rpcs: [
      v(1, {
        authority: GRPC_AUTHORITY,
        ...md({ 'Some-Other-Header': 'this-header-should-be-set' }),
      }),
      v(1, { authority: GRPC_AUTHORITY, ...md({ 'X-Header-Remove': 'this-should-be-removed' }) }),
      v(2, {
        method: 'EchoTwo',
        authority: GRPC_AUTHORITY,
        ...md({ 'X-Header-Set-2': 'set-header-2', 'X-Header-Remove-2': 'should-be-removed-2' }),
      }),
    ],
  },
  {
    name: 'GRPCRouteNamedRule',
    file: 'grpcroute-named-rule.yaml',
    profile: 'GATEWAY-GRPC',
    level: 'extended',
    requests: [],
    routes: [{ kind: 'GRPCRoute', name: 'grpc-named-rules' }],
    rpcs: [v(1), v(2, { method: 'EchoTwo' })],
  },
];
