import { generateCertificate, type KubeObject } from '#testbed/kube-sim';
import { INFRA, type GatewayCase } from './cases.js';
import { consecutive } from './judge.js';
import { sampleShares, weightedTest, type Judged } from './weighted.js';
import type { GrpcCase } from './grpc-cases.js';
import { GrpcEchoClient } from './grpc-client.js';
import { judgeRpc, type GrpcExpectation } from './grpc-judge.js';

/** Is this case a GRPCRoute case (RPCs rather than HTTP requests)? */
export const isGrpcCase = (c: GatewayCase): c is GrpcCase => 'rpcs' in c;

/**
 * The Secret the base fixture's grpc-infra-backend pods mount (their TLS listener), self-signed
 * for the names upstream's suite gives it; without it the pods cannot start.
 */
export async function grpcSuiteSecrets(): Promise<KubeObject[]> {
  const tls = await generateCertificate({ dnsNames: ['abc.example.com', 'other.example.com'] });
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/tls',
      metadata: { namespace: 'gateway-conformance-infra', name: 'tls-checks-certificate' },
      data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
    },
  ];
}

/** Where a case's calls go: each Gateway's address and the (offset) HTTP listener port. */
export interface GrpcTargets {
  readonly addresses: ReadonlyMap<string, string>;
  readonly port: number;
}

const describe = (x: GrpcExpectation) =>
  `${x.authority ?? ''}${x.method} ${JSON.stringify(x.metadata ?? {})}`;

function targetOf(t: GrpcTargets, gateway = 'same-namespace'): string {
  const address = t.addresses.get(gateway);
  if (!address) throw new Error(`no address for Gateway ${gateway}`);
  return `${address}:${t.port}`;
}

/** Upstream's MakeRequestAndExpectEventuallyConsistentResponse: one client, 3 in a row. */
async function expectRpc(t: GrpcTargets, x: GrpcExpectation): Promise<string | undefined> {
  const client = new GrpcEchoClient(targetOf(t, x.gateway), x.authority);
  try {
    const why = await consecutive(async () => judgeRpc(x, await client.call(x)), {
      deadlineMs: 60_000,
    });
    return why === undefined ? undefined : `${describe(x)}: ${why}`;
  } finally {
    client.close();
  }
}

/** What each sampled call must meet: OK from `Echo` in the infra namespace (upstream checks the code; the rest is free to check). */
const SAMPLED: GrpcExpectation = { method: 'Echo', backend: '', namespace: INFRA };

/** One sampled `Echo` call (a fresh client and an `x-jitter` each, as upstream), judged. */
async function sampledCall(target: string, i: number): Promise<Judged> {
  const client = new GrpcEchoClient(target, undefined);
  try {
    const reply = await client.call({ method: 'Echo', metadata: { 'x-jitter': String(i) } });
    const pod = reply.assertions?.context?.pod ?? '';
    const why = judgeRpc(SAMPLED, reply);
    return why === undefined ? { pod } : { why, pod };
  } finally {
    client.close();
  }
}

/** Upstream's weighted test over RPCs: up to 10 samples of 500 calls (a weight-0 answer fails at once). */
function weighted(t: GrpcTargets, weights: Readonly<Record<string, number>>) {
  const target = targetOf(t);
  return weightedTest(() => sampleShares((i) => sampledCall(target, i), weights));
}

/** The traffic half of a GRPCRoute case (status already settled): its RPCs, then its shares. */
export async function grpcTraffic(t: GrpcTargets, c: GrpcCase): Promise<string | undefined> {
  for (const x of c.rpcs) {
    const why = await expectRpc(t, x);
    if (why) return why;
  }
  return c.weights ? weighted(t, c.weights) : undefined;
}
