import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '#testbed/kube-sim';
import { assembleLibrary, repoRoot, Stack, waitFor } from '#testbed/stack';
import type { RouteCheck } from './cases.js';
import { suiteSecrets } from './fixtures.js';
import { grpcSuiteSecrets } from './grpc-run.js';
import { routeConditionOf, routeParents } from './route-parents.js';

// The Gateway API suite's set-up: the stack with the upstream base fixture, each case's
// manifests, and the waits until what a case applied has settled (before it is judged).

/** Listener ports are shifted by this much (80 → 10080, 443 → 10443): a non-root user cannot bind below 1024. */
export const GATEWAY_PORT_OFFSET = 10_000;
export const GATEWAY_CLASS = 'haptic-conformance';
const CONTROLLER = 'haproxy-haptic.org/gateway-controller';
export const INFRA = 'gateway-conformance-infra';
const DIR = () => join(repoRoot(), 'test/conformance/gateway-api');
const CRDS = ['gatewayclasses', 'gateways', 'httproutes', 'grpcroutes', 'referencegrants'];

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

/** The API path of one object, to delete it after its case. */
export function pathOf(o: KubeObject): string {
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
export async function startStack(log: (l: string) => void): Promise<Stack> {
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
export async function gatewayAddress(stack: Stack, name: string): Promise<string> {
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
export async function routeSettled(stack: Stack, r: RouteCheck): Promise<void> {
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

/** Each named listener (`gateway/listener`) counts the attached routes the case expects. */
export async function attachedSettled(
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
