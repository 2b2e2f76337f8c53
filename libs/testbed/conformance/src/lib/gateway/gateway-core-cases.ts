import type { CaseTools, GatewayCase } from './cases.js';
import { FALSE, listener, TRUE } from './http-core-cases.js';
import {
  classPath,
  gatewayListeners,
  gatewayPath,
  generationOf,
  latestConditions,
  mergePatch,
  namespaceReady,
  until,
  type ListenerExpectation,
} from './status-checks.js';

/**
 * The core Gateway and ReferenceGrant tests every Gateway profile runs (EXPECTATIONS.md §4),
 * their expectations restated from the upstream Go tests: status only, no traffic.
 */

const noKinds = (name: string, conditions: ListenerExpectation['conditions']) => ({
  name,
  kinds: [],
  attachedRoutes: 0,
  conditions,
});
const https = (conditions: ListenerExpectation['conditions']) => listener('https', 0, conditions);

interface Listener {
  readonly name: string;
  readonly [field: string]: unknown;
}

async function listenersOf(t: CaseTools, gateway: string): Promise<Listener[]> {
  const g = await t.stack.get<{ spec: { listeners: Listener[] } }>(gatewayPath(gateway));
  return g?.spec.listeners ?? [];
}

/** Patches a Gateway's listeners (a merge patch replaces the list) and checks what upstream checks after it. */
async function changeListeners(
  t: CaseTools,
  gateway: string,
  change: (ls: Listener[]) => Listener[],
  after: () => Promise<string | undefined>,
): Promise<string | undefined> {
  const path = gatewayPath(gateway);
  const first = (await namespaceReady(t.stack)) ?? (await latestConditions(t.stack, path));
  if (first) return first;
  const before = await generationOf(t.stack, path);
  await mergePatch(t.stack, path, { spec: { listeners: change(await listenersOf(t, gateway)) } });
  const why =
    (await namespaceReady(t.stack)) ?? (await after()) ?? (await latestConditions(t.stack, path));
  if (why) return why;
  const now = await generationOf(t.stack, path);
  return now === before
    ? `Gateway ${gateway}: generation stayed ${before} after the patch`
    : undefined;
}

const fromAll = { namespaces: { from: 'All' } };

async function modifyListeners(t: CaseTools): Promise<string | undefined> {
  const added = await changeListeners(
    t,
    'gateway-add-listener',
    (ls) => [
      ...ls,
      {
        name: 'http',
        port: 80,
        protocol: 'HTTP',
        hostname: 'data.test.com',
        allowedRoutes: fromAll,
      },
    ],
    () =>
      gatewayListeners(t.stack, 'gateway-add-listener', [
        listener('https', 1),
        listener('http', 1),
      ]),
  );
  if (added) return `adding a listener: ${added}`;
  const removed = await changeListeners(
    t,
    'gateway-remove-listener',
    (ls) => ls.filter((l) => l.name === 'http'),
    () => gatewayListeners(t.stack, 'gateway-remove-listener', [listener('http', 1)]),
  );
  return removed ? `removing a listener: ${removed}` : undefined;
}

async function gatewayGenerationBump(t: CaseTools): Promise<string | undefined> {
  return changeListeners(
    t,
    'gateway-observed-generation-bump',
    (ls) => [
      ...ls,
      {
        name: 'alternate',
        hostname: 'foo.com',
        port: 80,
        protocol: 'HTTP',
        allowedRoutes: fromAll,
      },
    ],
    () => Promise.resolve(undefined),
  );
}

const CLASS = 'gatewayclass-observed-generation-bump';

function classAccepted(t: CaseTools): Promise<string | undefined> {
  return until(`GatewayClass ${CLASS} Accepted (any status)`, async () => {
    const c = await t.stack.get<{
      metadata: { generation?: number };
      status?: { conditions?: { type: string; observedGeneration?: number }[] };
    }>(classPath(CLASS));
    const conds = c?.status?.conditions ?? [];
    if (conds.some((x) => x.observedGeneration !== c?.metadata.generation))
      return 'stale conditions';
    return conds.some((x) => x.type === 'Accepted') ? undefined : 'no Accepted condition';
  });
}

async function classGenerationBump(t: CaseTools): Promise<string | undefined> {
  const path = classPath(CLASS);
  const first = (await classAccepted(t)) ?? (await latestConditions(t.stack, path));
  if (first) return first;
  const before = await generationOf(t.stack, path);
  await mergePatch(t.stack, path, { spec: { description: 'new' } });
  const why = (await classAccepted(t)) ?? (await latestConditions(t.stack, path));
  if (why) return why;
  const now = await generationOf(t.stack, path);
  return now === before ? `generation stayed ${before} after the patch` : undefined;
}

const LONG_NAME = `gateway-name-maximum-length-${'a'.repeat(253 - 'gateway-name-maximum-length-'.length)}`;

const core = (c: Omit<GatewayCase, 'profile' | 'level' | 'routes' | 'requests' | 'gateways'>) =>
  ({
    profile: 'GATEWAY-HTTP',
    level: 'core',
    gateways: [],
    routes: [],
    requests: [],
    ...c,
  }) as const satisfies GatewayCase;

const refNotPermitted = [https([FALSE('ResolvedRefs', 'RefNotPermitted')])];
const granted = [https([TRUE('Programmed', 'Programmed'), TRUE('ResolvedRefs')])];
const invalidCert = [https([FALSE('ResolvedRefs', 'InvalidCertificateRef')])];

export const GATEWAY_CORE_CASES: readonly GatewayCase[] = [
  core({
    name: 'GatewayClassObservedGenerationBump',
    file: 'gatewayclass-observed-generation-bump.yaml',
    script: classGenerationBump,
  }),
  core({
    name: 'GatewayObservedGenerationBump',
    file: 'gateway-observed-generation-bump.yaml',
    script: gatewayGenerationBump,
  }),
  core({
    name: 'GatewayInvalidRouteKind',
    file: 'gateway-invalid-route-kind.yaml',
    listeners: {
      'gateway-only-invalid-route-kind': [
        noKinds('http', [FALSE('ResolvedRefs', 'InvalidRouteKinds')]),
      ],
      'gateway-supported-and-invalid-route-kind': [
        listener('http', 0, [FALSE('ResolvedRefs', 'InvalidRouteKinds')]),
      ],
    },
  }),
  core({
    name: 'GatewayInvalidTLSConfiguration',
    file: 'gateway-invalid-tls-configuration.yaml',
    listeners: {
      'gateway-certificate-nonexistent-secret': invalidCert,
      'gateway-certificate-unsupported-group': invalidCert,
      'gateway-certificate-unsupported-kind': invalidCert,
      'gateway-certificate-malformed-secret': invalidCert,
    },
  }),
  core({
    name: 'GatewayListenerUnsupportedProtocol',
    file: 'gateway-invalid-listeners-unsupported-protocol.yaml',
    gatewayConditions: {
      'gateway-only-unsupported-protocols': [FALSE('Accepted', 'ListenersNotValid')],
      'gateway-supported-and-unsupported-protocols': [TRUE('Accepted', 'ListenersNotValid')],
    },
    listeners: {
      'gateway-only-unsupported-protocols': [
        noKinds('invalid', [FALSE('Accepted', 'UnsupportedProtocol')]),
      ],
      'gateway-supported-and-unsupported-protocols': [
        listener('http', 0, [TRUE('Accepted', 'Accepted')]),
        noKinds('invalid', [FALSE('Accepted', 'UnsupportedProtocol')]),
      ],
    },
  }),
  core({
    name: 'GatewayInvalidParametersRef',
    file: 'gateway-invalid-parameters-ref.yaml',
    gatewayConditions: {
      'gateway-invalid-parameters-ref': [FALSE('Accepted', 'InvalidParameters')],
    },
  }),
  core({
    name: 'GatewayModifyListeners',
    file: 'gateway-modify-listeners.yaml',
    script: modifyListeners,
  }),
  core({
    name: 'GatewayNameMaximumLength',
    file: 'gateway-name-maximum-length.yaml',
    script: (t) => latestConditions(t.stack, gatewayPath(LONG_NAME)),
  }),
  core({
    name: 'GatewaySecretInvalidReferenceGrant',
    file: 'gateway-secret-invalid-reference-grant.yaml',
    listeners: { 'gateway-secret-invalid-reference-grant': refNotPermitted },
  }),
  core({
    name: 'GatewaySecretMissingReferenceGrant',
    file: 'gateway-secret-missing-reference-grant.yaml',
    listeners: { 'gateway-secret-missing-reference-grant': refNotPermitted },
  }),
  core({
    name: 'GatewaySecretReferenceGrantAllInNamespace',
    file: 'gateway-secret-reference-grant-all-in-namespace.yaml',
    listeners: { 'gateway-secret-reference-grant-all-in-namespace': granted },
  }),
  core({
    name: 'GatewaySecretReferenceGrantSpecific',
    file: 'gateway-secret-reference-grant-specific.yaml',
    listeners: { 'gateway-secret-reference-grant-specific': granted },
  }),
];
