import { send, type Stack } from '#testbed/stack';
import { grpcTraffic, isGrpcCase } from './grpc-run.js';
import type { CaseTools, GatewayCase } from './cases.js';
import { serverCertificate } from './fixtures.js';
import { consecutive, goServerIdentity, judgeReply, type HttpExpectation } from './judge.js';
import { GATEWAY_PORT_OFFSET, INFRA } from './setup.js';
import { gatewayCondition, gatewayListeners, routeCondition } from './status-checks.js';
import { judgeHttpAnswer, sampleShares, weightedTest } from './weighted.js';

// The Gateway API suite's judging: requests sent the way upstream sends them and their answers
// judged as upstream does, the status a case names, and the weighted-share sampling.

/** As upstream: the headers the echo backend is to answer with, `name:value` joined by `,`. */
const echoSetHeader = (h: Readonly<Record<string, string>>) =>
  Object.entries(h)
    .map(([k, v]) => `${k}:${v}`)
    .join(',');

/** Sends one expected request to a Gateway's address (listener port shifted) and says what was sent. */
async function request(address: string, x: HttpExpectation, ca?: string) {
  const port = (x.port ?? (x.https ? 443 : 80)) + GATEWAY_PORT_OFFSET;
  const host = x.host ?? address;
  const reply = await send({
    address,
    port,
    host,
    path: x.path,
    method: x.method ?? 'GET',
    headers: {
      'user-agent': 'Go-http-client/1.1',
      ...x.headers,
      ...(x.backendSets ? { 'X-Echo-Set-Header': echoSetHeader(x.backendSets) } : {}),
    },
    ...(x.https && ca ? { tls: { ca, checkServerIdentity: goServerIdentity } } : {}),
  });
  return {
    reply,
    sent: {
      scheme: x.https ? ('https' as const) : ('http' as const),
      host,
      port,
      path: x.path.split('?')[0] ?? '/',
    },
  };
}

/** The status checks a case names beyond its routes: listeners, Gateway conditions, route conditions. */
async function statusChecks(stack: Stack, c: GatewayCase): Promise<string | undefined> {
  for (const [gw, want] of Object.entries(c.listeners ?? {})) {
    const why = await gatewayListeners(stack, gw, want);
    if (why) return why;
  }
  for (const [gw, wants] of Object.entries(c.gatewayConditions ?? {}))
    for (const want of wants) {
      const why = await gatewayCondition(stack, gw, want);
      if (why) return why;
    }
  for (const r of c.routeConditions ?? []) {
    const why = await routeCondition(stack, r.route, r.gateway, r.condition);
    if (why) return why;
  }
  return undefined;
}

/** Requests judged upstream's way (three in a row within the deadline) against the case's Gateways. */
function caseTools(stack: Stack, addresses: ReadonlyMap<string, string>): CaseTools {
  const expect = async (x: HttpExpectation) => {
    const address = addresses.get(x.gateway ?? 'same-namespace');
    if (!address) return `no address for Gateway ${x.gateway ?? 'same-namespace'}`;
    const ca = x.https ? await serverCertificate(stack) : undefined;
    const why = await consecutive(
      async () => {
        const { reply, sent } = await request(address, x, ca);
        return judgeReply(x, reply, sent);
      },
      { deadlineMs: 60_000 },
    );
    const scheme = x.https ? 'https://' : '';
    return why
      ? `${x.method ?? 'GET'} ${scheme}${x.host ?? ''}${x.path} ${JSON.stringify(x.headers ?? {})}: ${why}`
      : undefined;
  };
  return { stack, expect };
}

/** The expectation each sampled answer is judged by, as upstream's: GET / served from the infra namespace. */
const sampled = (i?: number): HttpExpectation => ({
  path: '/',
  namespace: INFRA,
  ...(i === undefined ? {} : { headers: { 'X-Jitter': String(i) } }),
});

/** Upstream's weighted test: up to 10 samples of 500 fully judged answers (a weight-0 answer fails at once). */
function weighted(address: string, weights: Readonly<Record<string, number>>) {
  return weightedTest(
    () =>
      sampleShares(async (i) => {
        const x = sampled(i);
        const { reply, sent } = await request(address, x);
        return judgeHttpAnswer(x, reply, sent);
      }, weights),
    10,
    (line) => process.stderr.write(`     ${line}\n`),
  );
}

/** Judges a settled case: the status it names, then its traffic (gRPC, requests, weights, script). */
export async function judgeCase(
  stack: Stack,
  c: GatewayCase,
  addresses: ReadonlyMap<string, string>,
): Promise<string | undefined> {
  const status = await statusChecks(stack, c);
  if (status) return status;
  if (isGrpcCase(c)) return await grpcTraffic({ addresses, port: 80 + GATEWAY_PORT_OFFSET }, c);
  const tools = caseTools(stack, addresses);
  for (const x of c.requests) {
    const why = await tools.expect(x);
    if (why) return why;
  }
  if (c.weights) {
    const address = addresses.get('same-namespace');
    if (!address) return 'no address for Gateway same-namespace';
    // as upstream: the route serves (eventually consistent) before the shares are sampled
    const ready = await consecutive(
      async () => {
        const { reply, sent } = await request(address, sampled());
        return judgeReply(sampled(), reply, sent);
      },
      { deadlineMs: 60_000 },
    );
    if (ready) return `GET /: ${ready}`;
    return await weighted(address, c.weights);
  }
  return c.script ? await c.script(tools) : undefined;
}
