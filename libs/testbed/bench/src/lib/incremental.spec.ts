// Incremental rendering of the real Ingress library equals a full render, over random change
// sequences: Services shared by several Ingresses, conflicting hosts and paths, delete then
// recreate, Secret and EndpointSlice changes, objects that are quarantined, and config changes;
// webhook dry runs (an object overlaid, the cache reused but not changed) among them.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TemplateConfig } from '#core';
import { ResourceIndex, type KubeObject } from '#index';
import { compileTemplates, render, type CompiledTemplates, type RenderInputs } from '#render';
import { generateCertificate } from '#testbed/kube-sim';
import { loadIngressLibrary } from './ingress-library.js';

const NAMESPACES = ['a', 'b'] as const;
const SERVICES = ['s0', 's1', 's2'] as const;
const HOSTS = ['h0.example.com', 'h1.example.com', 'Not A Host'] as const;
const PATHS = ['/', '/api', '/static'] as const;
/** Stands for a host only this Ingress (namespace/name) has. */
const OWN_HOST = 'own';
// A Secret holds a real certificate (registered, replayed from kept fragments) or one that
// does not parse (quarantined); set in beforeAll.
const PEM = { cert: '', key: '' };
const BAD_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

type Op =
  | { readonly kind: 'upsert'; readonly watched: string; readonly object: KubeObject }
  | { readonly kind: 'remove'; readonly watched: string; readonly object: KubeObject }
  | { readonly kind: 'extra'; readonly extra: Record<string, unknown> }
  /** The pods now run what was rendered `back` renders ago (0: the last; more: a stale one). */
  | { readonly kind: 'deploy'; readonly back: number }
  | { readonly kind: 'dry-run'; readonly object: KubeObject; readonly remove: boolean };

const ns = fc.constantFrom(...NAMESPACES);
const svcName = fc.constantFrom(...SERVICES);

const ANNOTATIONS: readonly Record<string, string>[] = [
  {},
  { 'haproxy-haptic.org/timeout-server': '5s' },
  { 'haproxy-haptic.org/auth-secret': 'auth' },
  { 'haproxy-haptic.org/balance': 'bogus' },
  { 'haproxy-haptic.org/backend-tls': 'true', 'haproxy-haptic.org/backend-tls-ca-secret': 'ca' },
];

const ingress = fc
  .record({
    namespace: ns,
    name: fc.constantFrom('i0', 'i1', 'i2', 'i3'),
    age: fc.integer({ min: 0, max: 9 }),
    host: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(HOSTS[0], HOSTS[1]) },
      { weight: 1, arbitrary: fc.constant(HOSTS[2]) },
      // a host of its own: a change the Ingress model updates in place (no route shared)
      { weight: 4, arbitrary: fc.constant(OWN_HOST) },
    ),
    paths: fc.uniqueArray(fc.constantFrom(...PATHS), { minLength: 1, maxLength: 2 }),
    type: fc.constantFrom('Prefix', 'Exact'),
    service: svcName,
    annotations: fc.oneof(
      { weight: 4, arbitrary: fc.constant(ANNOTATIONS[0]!) },
      { weight: 1, arbitrary: fc.constantFrom(...ANNOTATIONS) },
    ),
    tls: fc.boolean(),
  })
  .map(ingressOf);

interface IngressShape {
  namespace: string;
  name: string;
  age: number;
  host: string;
  paths: readonly string[];
  type: string;
  service: string;
  annotations: Record<string, string>;
  tls: boolean;
}

function ingressOf(shape: IngressShape): KubeObject {
  const own = `${shape.name}.${shape.namespace}.example.com`;
  const i = shape.host === OWN_HOST ? { ...shape, host: own } : shape;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      namespace: i.namespace,
      name: i.name,
      creationTimestamp: `2025-01-01T00:00:0${i.age}Z`,
      annotations: i.annotations,
    },
    spec: {
      ingressClassName: 'haptic',
      ...(i.tls ? { tls: [{ hosts: [i.host], secretName: 'tls' }] } : {}),
      rules: [
        {
          host: i.host,
          http: {
            paths: i.paths.map((p) => ({
              path: p,
              pathType: i.type,
              backend: { service: { name: i.service, port: { number: 80 } } },
            })),
          },
        },
      ],
    },
  };
}

function serviceOf(s: { namespace: string; name: string; target: number }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: s.namespace, name: s.name },
    spec: { ports: [{ name: 'http', port: 80, targetPort: s.target }] },
  };
}

const service = fc
  .record({ namespace: ns, name: svcName, target: fc.constantFrom(8080, 9090) })
  .map(serviceOf);

const slice = fc
  .record({
    namespace: ns,
    service: svcName,
    suffix: fc.constantFrom('x', 'y'),
    port: fc.constantFrom(8080, 8080, 9090, 0),
    hosts: fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 }),
    ready: fc.boolean(),
  })
  .map(sliceOf);

interface SliceShape {
  namespace: string;
  service: string;
  suffix: string;
  port: number;
  hosts: readonly number[];
  ready: boolean;
}

function sliceOf(s: SliceShape): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: s.namespace,
      name: `${s.service}-${s.suffix}`,
      labels: { 'kubernetes.io/service-name': s.service },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: s.port }],
    endpoints: s.hosts.map((h) => ({
      addresses: [`10.0.0.${h}`],
      conditions: { ready: s.ready || h % 2 === 0 },
    })),
  };
}

const secret = fc
  .record({ namespace: ns, name: fc.constantFrom('tls', 'auth', 'ca'), good: fc.boolean() })
  .map((s): KubeObject => {
    const data: Record<string, string> =
      s.name === 'tls'
        ? { 'tls.crt': b64(s.good ? PEM.cert : BAD_CERT), 'tls.key': b64(PEM.key) }
        : s.name === 'auth'
          ? { auth: b64(s.good ? 'user:$apr1$abc$def\n' : '') }
          : { 'ca.crt': b64(s.good ? PEM.cert : 'nope') };
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: s.namespace, name: s.name },
      data,
    };
  });

const objectOp = (watched: string, arb: fc.Arbitrary<KubeObject>): fc.Arbitrary<Op> =>
  fc
    .tuple(fc.boolean(), arb)
    .map(([keep, object]) =>
      keep ? { kind: 'upsert', watched, object } : { kind: 'remove', watched, object },
    );

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: objectOp('ingresses', ingress) },
  { weight: 2, arbitrary: objectOp('services', service) },
  { weight: 3, arbitrary: objectOp('endpointslices', slice) },
  { weight: 2, arbitrary: objectOp('secrets', secret) },
  {
    weight: 1,
    arbitrary: fc
      .record({
        server_slots: fc.constantFrom(2, 8),
        balance: fc.constantFrom('roundrobin', 'leastconn'),
      })
      .map((extra): Op => ({ kind: 'extra', extra })),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: 4 }).map((back): Op => ({ kind: 'deploy', back })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(ingress, fc.boolean())
      .map(([object, remove]): Op => ({ kind: 'dry-run', object, remove })),
  },
);

function emptyIndex(config: TemplateConfig): ResourceIndex {
  const index = new ResourceIndex();
  const watched = config.spec.watchedResources;
  index.configure(
    Object.fromEntries(
      Object.entries(watched).map(([n, w]) => [n, { indexBy: w.indexBy, store: 'full' as const }]),
    ),
  );
  for (const name of Object.keys(watched)) {
    index.reset(name, undefined, []);
    index.listed(name);
  }
  index.upsert('ingressclasses', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'haptic' },
    spec: { controller: 'haproxy-haptic.org/ingress-controller' },
  });
  // A served start: every Service with a slice of two ready endpoints, one Ingress per namespace.
  for (const namespace of NAMESPACES) {
    for (const name of SERVICES) {
      index.upsert('services', serviceOf({ namespace, name, target: 8080 }));
      const endpoints = { suffix: 'x', port: 8080, hosts: [1, 2], ready: true };
      index.upsert('endpointslices', sliceOf({ namespace, service: name, ...endpoints }));
    }
    // and a good TLS Secret (Ingresses with spec.tls name it; a change may spoil it)
    index.upsert('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace, name: 'tls' },
      data: { 'tls.crt': b64(PEM.cert), 'tls.key': b64(PEM.key) },
    });
    const route = { host: 'h0.example.com', paths: ['/'], type: 'Prefix', service: 's0' };
    const ing = { namespace, name: 'i0', age: 1, annotations: {}, tls: false, ...route };
    index.upsert('ingresses', ingressOf(ing));
  }
  return index;
}

/** Applies the ops one by one; after each, the incremental render must equal a full one. */
async function check(config: TemplateConfig, compiled: CompiledTemplates, ops: readonly Op[]) {
  const index = emptyIndex(config);
  let inputs: RenderInputs = { maxQuarantine: 20 };
  const history: string[] = [];
  for (const o of ops) {
    if (o.kind === 'upsert') index.upsert(o.watched, o.object);
    else if (o.kind === 'remove') index.remove(o.watched, o.object);
    else if (o.kind === 'extra') inputs = { ...inputs, extra: o.extra };
    const snapshot = await index.snapshot();
    if (o.kind === 'dry-run') {
      // As the webhook: the object overlaid, the cache reused without being changed; the
      // renders after it (incremental) must still equal full ones.
      const operation = o.remove ? ('delete' as const) : ('update' as const);
      const overlay = snapshot.withOverlay([
        { resource: 'ingresses', operation, object: o.object },
      ]);
      const dry = render(compiled, overlay, { ...inputs, reuseOnly: true });
      expect(dry).toEqual(render(compiled, overlay, { ...inputs, incremental: false }));
      rendered.dryRuns++;
    }
    if (o.kind === 'deploy') {
      // What HAProxy now runs (the last render, or a stale one read back from the pods): the
      // next render keeps server slots stable against it.
      const deployed = history[history.length - 1 - Math.min(o.back, history.length - 1)];
      if (deployed !== undefined) inputs = { ...inputs, previous: { haproxyConfig: deployed } };
    }
    const full = render(compiled, snapshot, { ...inputs, incremental: false });
    if (full.ok) history.push(full.outputs.haproxyConfig);
    if (full.ok && Object.keys(full.outputs.sslCertificates).length > 0)
      rendered.withCertificates++;
    expect(render(compiled, snapshot, inputs)).toEqual(full);
    if (full.ok) rendered.ok++;
    if (full.ok && /server \S+ 10\./.test(full.outputs.haproxyConfig)) rendered.withServers++;
    rendered.quarantined += full.quarantined.length;
  }
}

/** How many renders succeeded and how many objects were quarantined (the test covers both). */
const rendered = { ok: 0, withServers: 0, withCertificates: 0, quarantined: 0, dryRuns: 0 };

/**
 * The library with an operator's extension (a `frontend-http-*` snippet) whose fragments read
 * what the library's own never read: whole lists (`resources.<name>.size`, element fields) and a
 * context provider's value (`ingress`). Their dependency checks (`list:*`, `global:ingress`) are
 * exercised only through it, for single fragments and for the items of a `render ... for` list.
 */
function withExtension(library: TemplateConfig): TemplateConfig {
  const snippet = (template: string) => ({ template });
  const spec = {
    ...library.spec,
    templateSnippets: {
      ...library.spec.templateSnippets,
      // two fragments: a provider's value never reads the same, so a fragment that read one is
      // always rendered again, whatever else it read
      'frontend-http-900-counts': snippet(
        '{%- render "test-lists" -%}{%- render "test-served" -%}{%- render "test-item" for ingress.served as i -%}',
      ),
      'test-lists': snippet(
        '\n  # {{ resources.secrets.size }} Secrets, Services {{ resources.services | map: "metadata" | map: "name" | join: "," }}',
      ),
      // one fragment per served Ingress that reads a whole list: a `render ... for` list's
      // kept runs of items are checked against it (`list:secrets`) as each item is
      'test-item': snippet('\n  # {{ i.metadata.name }} of {{ resources.secrets.size }} Secrets'),
      'test-served': snippet(
        '\n  # served: {% for i in ingress.served %}{{ i.metadata.namespace }}/{{ i.metadata.name }} {% endfor %}',
      ),
    },
  };
  return { ...library, spec };
}

describe('incremental rendering of the Ingress library', () => {
  let config: TemplateConfig;
  beforeAll(async () => {
    config = withExtension(await loadIngressLibrary(process.cwd()));
    Object.assign(PEM, await generateCertificate({ dnsNames: ['h0.example.com'] }));
  }, 60_000);

  it('renders the same bytes, quarantines and problems as a full render after any changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        // A fresh compile per sequence: no fragment outlives its sequence.
        const compiled = compileTemplates(config.spec);
        if (!compiled.ok) throw new Error(compiled.error[0]?.message);
        await check(config, compiled.value, ops);
      }),
      // a fixed seed (FC_SEED picks another): the coverage counts below must not depend on luck
      { numRuns: 60, seed: Number(process.env['FC_SEED'] ?? 20261201) },
    );
    expect(rendered.ok).toBeGreaterThan(100);
    expect(rendered.withServers).toBeGreaterThan(100);
    expect(rendered.quarantined).toBeGreaterThan(10);
    expect(rendered.dryRuns).toBeGreaterThan(20);
    expect(rendered.withCertificates).toBeGreaterThan(20);
  }, 300_000);
});
