import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '#testbed/kube-sim';
import { assembleLibrary, repoRoot, send, Stack, waitFor } from '#testbed/stack';
import { GATEWAY_CASES, type CaseTools, type GatewayCase, type RouteCheck } from './cases.js';
import { GATEWAY_CORE_CASES } from './gateway-core-cases.js';
import { HTTP_CORE_CASES } from './http-core-cases.js';
import { HTTP_EXTENDED_CASES } from './http-extended-cases.js';
import { serverCertificate, suiteSecrets } from './fixtures.js';
import { gatewayCondition, gatewayListeners, routeCondition } from './status-checks.js';
import { consecutive, goServerIdentity, judgeReply, type HttpExpectation } from './judge.js';
import { judgeHttpAnswer, sampleShares, weightedTest } from './weighted.js';
import { routeConditionOf, routeParents } from './route-parents.js';
import { GRPC_CASES } from './grpc-cases.js';
import { grpcSuiteSecrets, grpcTraffic, isGrpcCase } from './grpc-run.js';

/** Listener ports are shifted by this much (80 → 10080, 443 → 10443): a non-root user cannot bind below 1024. */
export const GATEWAY_PORT_OFFSET = 10_000;
export const GATEWAY_CLASS = 'haptic-conformance';
const CONTROLLER = 'haproxy-haptic.org/gateway-controller';
const INFRA = 'gateway-conformance-infra';
const DIR = () => join(repoRoot(), 'test/conformance/gateway-api');
const CRDS = ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes', 'referencegrants'];

/** One case of the report: the Ingress suite's shape plus the upstream profile and level. */
export interface GatewayCaseReport {
  readonly name: string;
  readonly result: 'passed' | 'failed' | 'skipped';
  readonly reason: string;
  readonly profile: GatewayCase['profile'];
  readonly level: GatewayCase['level'];
}

export interface GatewaySuiteReport {
  readonly suite: 'gateway-api';
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly cases: readonly GatewayCaseReport[];
}

/** The objects of one upstream manifest file, with the GatewayClass placeholder filled in. */
export function manifests(file: string): KubeObject[] {
  const text = readFileSync(join(DIR(), file), 'utf8')
    .replaceAll('{GATEWAY_CLASS_NAME}', GATEWAY_CLASS)
    .replaceAll('{GATEWAY_CONTROLLER_NAME}', CONTROLLER);
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null && typeof o.kind === 'string');
}

const PLURAL: Record<string, string> = {
  Gateway: 'gateways',
  HTTPRoute: 'httproutes',
  GRPCRoute: 'grpcroutes',
  ReferenceGrant: 'referencegrants',
  Service: 'services',
  Secret: 'secrets',
  Deployment: 'deployments',
  EndpointSlice: 'endpointslices',
  GatewayClass: 'gatewayclasses',
};

function pathOf(o: KubeObject): string {
  const plural = PLURAL[o.kind] ?? `${o.kind.toLowerCase()}s`;
  const base = o.apiVersion === 'v1' ? '/api/v1' : `/apis/${o.apiVersion}`;
  if (o.kind === 'GatewayClass') return `${base}/${plural}/${o.metadata.name}`;
  return `${base}/namespaces/${o.metadata.namespace ?? 'default'}/${plural}/${o.metadata.name}`;
}

/** The base fixture's backends the cases use (the TLS/TCP backends need Secrets this runner does not create). */
const BACKENDS = /^(infra-backend-v[123]|app-backend-v[12]|web-backend|grpc-infra-backend-v[123])$/;
const isUsed = (o: KubeObject) =>
  !['Deployment', 'Service'].includes(o.kind) || BACKENDS.test(o.metadata.name ?? '');

/** The stack with the Gateway API library, its CRDs and the upstream base fixture, pods ready. */
async function startStack(log: (l: string) => void): Promise<Stack> {
  const library = await assembleLibrary('gateway-api');
  const spec = library['spec'] as { templatingSettings: { extraContext: Record<string, unknown> } };
  spec.templatingSettings.extraContext = {
    ...spec.templatingSettings.extraContext,
    gateway_controller_name: CONTROLLER,
    gateway_port_offset: GATEWAY_PORT_OFFSET,
    gateway_address_pool: `127.${81 + Math.floor(Math.random() * 100)}.0.0/16`,
  };
  const stack = await Stack.start({
    fast: true,
    library,
    haproxyReplicas: 1,
    kubeSimManifests: CRDS.map((c) => join(DIR(), 'crds', `gateway.networking.k8s.io_${c}.yaml`)),
    log,
  });
  const base = [...(await grpcSuiteSecrets()), ...manifests('base/manifests.yaml').filter(isUsed)];
  await stack.apply([
    {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'GatewayClass',
      metadata: { name: GATEWAY_CLASS },
      spec: { controllerName: CONTROLLER },
    },
    ...base.filter((o) => o.kind === 'Namespace'),
  ]);
  await stack.apply([...(await suiteSecrets()), ...base.filter((o) => o.kind !== 'Namespace')]);
  for (const d of base.filter((o) => o.kind === 'Deployment')) {
    const want = (d as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    const ns = d.metadata.namespace ?? 'default';
    await waitFor(
      `${want} ready pods of ${ns}/${d.metadata.name}`,
      async () =>
        (await stack.readyPods(ns, { app: d.metadata.name ?? '' })).length === want
          ? true
          : undefined,
      180_000,
      250,
    );
  }
  return stack;
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  observedGeneration?: number;
}
interface GatewayObject {
  metadata: { generation?: number };
  status?: {
    addresses?: { value: string }[];
    conditions?: Condition[];
    listeners?: { name: string; attachedRoutes: number; conditions?: Condition[] }[];
  };
}

const cond = (list: Condition[] | undefined, type: string) => list?.find((c) => c.type === type);

const LISTENER_READY = ['Accepted', 'ResolvedRefs', 'Programmed'];

/** The Gateway's address once it is Programmed and (as upstream asks) every listener is Accepted, ResolvedRefs and Programmed. */
async function gatewayAddress(stack: Stack, name: string): Promise<string> {
  return waitFor(
    `Gateway ${name} to be Programmed with an address, its listeners ready`,
    async () => {
      const g = await stack.get<GatewayObject>(
        `/apis/gateway.networking.k8s.io/v1/namespaces/${INFRA}/gateways/${name}`,
      );
      const p = cond(g?.status?.conditions, 'Programmed');
      const listenersReady = (g?.status?.listeners ?? []).every((l) =>
        LISTENER_READY.every((t) => cond(l.conditions, t)?.status === 'True'),
      );
      return p?.status === 'True' &&
        p.observedGeneration === g?.metadata.generation &&
        listenersReady
        ? g?.status?.addresses?.[0]?.value
        : undefined;
    },
    60_000,
    200,
  );
}

/** Upstream's GatewayAndRoutesMustBeAccepted for one route: each Gateway it names shows its expected Accepted and ResolvedRefs. */
async function routeSettled(stack: Stack, r: RouteCheck): Promise<void> {
  const plural = r.kind === 'GRPCRoute' ? 'grpcroutes' : 'httproutes';
  const path = `/apis/gateway.networking.k8s.io/v1/namespaces/${r.namespace ?? INFRA}/${plural}/${r.name}`;
  const why = await routeParents(stack, path, {
    controller: CONTROLLER,
    conditions: [
      routeConditionOf('Accepted', r.accepted ?? 'Accepted'),
      routeConditionOf('ResolvedRefs', r.resolvedRefs ?? 'ResolvedRefs'),
    ],
  });
  if (why) throw new Error(why);
}

async function attachedSettled(
  stack: Stack,
  counts: Readonly<Record<string, number>>,
): Promise<void> {
  for (const [key, want] of Object.entries(counts)) {
    const [gw, listener] = key.split('/') as [string, string];
    await waitFor(
      `Gateway ${gw} listener ${listener} attachedRoutes = ${want}`,
      async () => {
        const g = await stack.get<GatewayObject>(
          `/apis/gateway.networking.k8s.io/v1/namespaces/${INFRA}/gateways/${gw}`,
        );
        return g?.status?.listeners?.find((l) => l.name === listener)?.attachedRoutes === want
          ? true
          : undefined;
      },
      60_000,
      200,
    );
  }
}

/** As upstream: the headers the echo backend is to answer with, `name:value` joined by `,`. */
const echoSetHeader = (h: Readonly<Record<string, string>>) =>
  Object.entries(h)
    .map(([k, v]) => `${k}:${v}`)
    .join(',');

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

async function runCase(stack: Stack, c: GatewayCase): Promise<string | undefined> {
  const objects = manifests(`tests/${c.file}`);
  await stack.apply(objects);
  try {
    const addresses = new Map<string, string>();
    for (const g of c.gateways ?? ['same-namespace'])
      addresses.set(g, await gatewayAddress(stack, g));
    for (const r of c.routes) await routeSettled(stack, r);
    if (c.attached) await attachedSettled(stack, c.attached);
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
  } finally {
    for (const o of objects) await stack.delete(pathOf(o)).catch(() => undefined);
  }
}

/** Runs the Gateway API cases (all, or those named) against a fresh stack. */
export async function runGatewaySuite(
  names: readonly string[] | undefined,
  progress: (c: GatewayCaseReport) => void = () => undefined,
  log: (l: string) => void = () => undefined,
): Promise<GatewaySuiteReport> {
  const all = [
    ...GATEWAY_CASES,
    ...HTTP_CORE_CASES,
    ...GATEWAY_CORE_CASES,
    ...HTTP_EXTENDED_CASES,
    ...GRPC_CASES,
  ];
  const cases = names?.length ? all.filter((c) => names.includes(c.name)) : all;
  const unknown = (names ?? []).filter((n) => !all.some((c) => c.name === n));
  if (unknown.length > 0) throw new RangeError(`unknown Gateway API cases: ${unknown.join(', ')}`);
  const stack = await startStack(log);
  const reports: GatewayCaseReport[] = [];
  try {
    for (const c of cases) {
      const why = await runCase(stack, c).catch((e: unknown) =>
        e instanceof Error ? e.message : String(e),
      );
      const r: GatewayCaseReport = {
        name: c.name,
        result: why === undefined ? 'passed' : 'failed',
        reason: why ?? '',
        profile: c.profile,
        level: c.level,
      };
      reports.push(r);
      progress(r);
    }
  } finally {
    await stack.stop();
  }
  const count = (x: GatewayCaseReport['result']) => reports.filter((r) => r.result === x).length;
  return {
    suite: 'gateway-api',
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    cases: reports,
  };
}
