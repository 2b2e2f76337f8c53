import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INGRESS_MODEL_COUNTS, ingressModel } from './model.js';

const CONTROLLER = 'haproxy-haptic.org/ingress-controller';
const classes = [{ metadata: { name: 'haptic' }, spec: { controller: CONTROLLER } }];

type Path = { path?: string; pathType?: string; svc?: string; port?: number | string };

function ing(name: string, created: string, host: string | undefined, paths: Path[], extra = {}) {
  return {
    kind: 'Ingress',
    metadata: { namespace: 'apps', name, creationTimestamp: created },
    spec: {
      ingressClassName: 'haptic',
      rules: [
        {
          ...(host === undefined ? {} : { host }),
          http: {
            paths: paths.map((p) => ({
              ...(p.path === undefined ? {} : { path: p.path }),
              ...(p.pathType === undefined ? {} : { pathType: p.pathType }),
              backend: {
                service: {
                  name: p.svc ?? 'web',
                  port: typeof p.port === 'string' ? { name: p.port } : { number: p.port ?? 80 },
                },
              },
            })),
          },
        },
      ],
      ...extra,
    },
  };
}

const model = (ingresses: object[], ingressClasses: object[] = classes) =>
  ingressModel({ ingresses, ingressClasses, controllerName: CONTROLLER });

describe('ingressModel', () => {
  it('serves Ingresses of our classes, oldest first, and the default class without one', () => {
    const other = { ...ing('other', '2024-01-01T00:00:00Z', 'o.com', [{}]) };
    (other.spec as { ingressClassName: string }).ingressClassName = 'nginx';
    const noClass = ing('plain', '2024-01-02T00:00:00Z', 'p.com', [{}]);
    delete (noClass.spec as { ingressClassName?: string }).ingressClassName;
    const young = ing('a-young', '2024-03-01T00:00:00Z', 'y.com', [{}]);
    const old = ing('z-old', '2024-02-01T00:00:00Z', 'z.com', [{}]);
    expect(model([other, noClass, young, old]).model.served).toEqual([old, young]);
    const defaulted = [
      {
        ...classes[0],
        metadata: {
          name: 'haptic',
          annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
        },
      },
    ];
    expect(model([noClass, young], defaulted).model.served).toEqual([noClass, young]);
  });

  it('keys routes by host and path: exact, prefix without trailing slashes, longest first', () => {
    const { model: m, problems } = model([
      ing('a', '2024-01-01T00:00:00Z', 'Shop.Example.com', [
        { path: '/cart', pathType: 'Exact' },
        { path: '/api///', pathType: 'Prefix' },
        { path: '/static', pathType: 'ImplementationSpecific' },
        { path: '/api', pathType: 'Prefix', svc: 'other' },
      ]),
      ing('b', '2024-01-02T00:00:00Z', undefined, [{ pathType: 'Prefix', port: 'http' }]),
    ]);
    expect(problems).toEqual([]);
    expect(m.exact_routes).toEqual([{ key: 'shop.example.com/cart', backend: 'svc_apps_web_80' }]);
    expect(m.prefix_routes).toEqual([
      { key: 'shop.example.com/static', backend: 'svc_apps_web_80' },
      { key: 'shop.example.com/api/', backend: 'svc_apps_web_80' },
      { key: '*/', backend: 'svc_apps_web_http' },
    ]);
    expect(m.backends.map((b) => b.name)).toEqual([
      'svc_apps_other_80',
      'svc_apps_web_80',
      'svc_apps_web_http',
    ]);
  });

  it('gives an annotated Ingress backends of its own, and takes the oldest default backend', () => {
    const annotated = ing('x', '2024-01-02T00:00:00Z', 'x.com', [{}], {
      defaultBackend: { service: { name: 'fallback', port: { number: 8080 } } },
    });
    (annotated.metadata as Record<string, unknown>)['annotations'] = {
      'haproxy-haptic.org/balance': 'leastconn',
    };
    const plain = ing('y', '2024-01-03T00:00:00Z', 'y.com', [{}], {
      defaultBackend: { service: { name: 'later', port: { number: 80 } } },
    });
    const { model: m } = model([annotated, plain]);
    expect(m.default_backend).toBe('ing_apps_x_fallback_8080');
    expect(m.backends.map((b) => [b.name, b.ingress])).toEqual([
      ['ing_apps_x_fallback_8080', annotated],
      ['ing_apps_x_web_80', annotated],
      ['svc_apps_later_80', plain],
      ['svc_apps_web_80', plain],
    ]);
  });

  it('refuses every invalid Ingress at once, naming it, and serves the rest', () => {
    const { model: m, problems } = model([
      ing('bad-host', '2024-01-01T00:00:00Z', 'bad host', [{}]),
      ing('bad-path', '2024-01-02T00:00:00Z', 'a.com', [{ path: 'no-slash' }]),
      ing('bad-type', '2024-01-03T00:00:00Z', 'b.com', [{ pathType: 'Regex' }]),
      ing('bad-svc', '2024-01-04T00:00:00Z', 'c.com', [{ svc: 'Web_1' }]),
      ing('bad-port', '2024-01-05T00:00:00Z', 'd.com', [{ port: 70000 }]),
      ing('good', '2024-01-06T00:00:00Z', 'e.com', [{}]),
    ]);
    expect(problems.map((p) => [p.object?.name, p.code, p.message])).toEqual([
      ['bad-host', 'invalid-value', 'valid_hostname: "bad host" is not a valid host name'],
      ['bad-path', 'invalid-value', 'valid_path: "no-slash" is not a valid URL path'],
      ['bad-type', 'fail', 'Ingress apps/bad-type: unknown pathType Regex'],
      [
        'bad-svc',
        'fail',
        'Ingress apps/bad-svc: spec.rules[0].http.paths[0].backend.service.name is not a Service name',
      ],
      [
        'bad-port',
        'fail',
        'Ingress apps/bad-port: spec.rules[0].http.paths[0].backend.service.port.number is not a port (1-65535)',
      ],
    ]);
    expect(m.served.map((i) => (i as { metadata: { name: string } }).metadata.name)).toEqual([
      'good',
    ]);
  });

  it('refuses namespaces and names a real API server would refuse (they reach backend names)', () => {
    const named = (namespace: string, name: string) => {
      const i = ing(name, '2024-01-01T00:00:00Z', 'a.com', [{}]);
      return { ...i, metadata: { ...i.metadata, namespace } };
    };
    const { model: m, problems } = model([
      named('ap ps', 'x'),
      named('apps', 'a#b'),
      named('apps', 'n\u212ame'),
      named('apps', 'ok.name-1'),
    ]);
    expect(problems.map((p) => [p.object?.name, p.code])).toEqual([
      ['x', 'invalid-value'],
      ['a#b', 'invalid-value'],
      ['n\u212ame', 'invalid-value'],
    ]);
    expect(problems[0]?.message).toBe(
      'Ingress "ap ps/x": metadata.namespace or name is not a Kubernetes name',
    );
    expect(m.served).toHaveLength(1);
  });

  it('lets the oldest Ingress keep a route; a refused Ingress claims nothing', () => {
    const owner = ing('owner', '2024-01-01T00:00:00Z', 'shop.com', [{ path: '/cart' }]);
    const squatter = ing('squatter', '2024-01-02T00:00:00Z', 'shop.com', [
      { path: '/cart', pathType: 'Prefix' },
      { path: '/new', pathType: 'Prefix' },
    ]);
    const next = ing('next', '2024-01-03T00:00:00Z', 'shop.com', [
      { path: '/new', pathType: 'Prefix' },
    ]);
    const same = ing('owner-again', '2024-01-04T00:00:00Z', 'shop.com', [
      { path: '/cart', pathType: 'Exact' },
    ]);
    owner.spec.rules[0]!.http.paths[0]!.pathType = 'Prefix';
    const { model: m, problems } = model([owner, squatter, next, same]);
    expect(problems.map((p) => [p.object?.name, p.message])).toEqual([
      [
        'squatter',
        'Ingress apps/squatter: host shop.com path /cart (Prefix) is already served by the older Ingress apps/owner; the oldest Ingress wins',
      ],
    ]);
    expect(m.prefix_routes.map((r) => r.key)).toEqual(['shop.com/cart/', 'shop.com/new/']);
    expect(m.exact_routes.map((r) => r.key)).toEqual(['shop.com/cart']);
  });

  it('gives the same result for the same objects, and a new one when an object is replaced', () => {
    const a = ing('a', '2024-01-01T00:00:00Z', 'a.com', [{ path: '/' }]);
    const b = ing('b', '2024-01-02T00:00:00Z', 'b.com', [{ path: '/' }]);
    const first = model([a, b]);
    // new arrays of the same objects (as each snapshot's list is): the same result
    expect(model([a, b], [...classes])).toBe(first);
    const b2 = ing('b', '2024-01-02T00:00:00Z', 'b.com', [{ path: '/v2', pathType: 'Exact' }]);
    const second = model([a, b2]);
    expect(second).not.toBe(first);
    expect(second.model.exact_routes.map((r) => r.key)).toEqual(['b.com/v2']);
    expect(model([a, b]).model.exact_routes).toEqual([]);
    expect(
      ingressModel({ ingresses: [a, b], ingressClasses: classes, controllerName: 'other' }).model
        .served,
    ).toEqual([]);
  });
});

describe('ingressModel, updated for a few changed Ingresses', () => {
  const HOSTS = ['h0.com', 'h1.com', 'own', 'Not A Host'] as const;
  const shape = fc.record({
    namespace: fc.constantFrom('a', 'b'),
    name: fc.constantFrom('i0', 'i1', 'i2', 'i3'),
    age: fc.integer({ min: 0, max: 5 }),
    host: fc.constantFrom(...HOSTS),
    paths: fc.uniqueArray(fc.constantFrom('/', '/api', '/x/'), { minLength: 0, maxLength: 2 }),
    type: fc.constantFrom('Prefix', 'Exact', 'ImplementationSpecific'),
    svc: fc.constantFrom('s0', 's1'),
    ours: fc.boolean(),
    annotated: fc.boolean(),
    defaultBackend: fc.boolean(),
    tls: fc.boolean(),
  });
  type Shape = typeof shape extends fc.Arbitrary<infer T> ? T : never;
  const ingressOf = (s: Shape) => ({
    kind: 'Ingress',
    metadata: {
      namespace: s.namespace,
      name: s.name,
      creationTimestamp: `2024-01-01T00:00:0${s.age}Z`,
      ...(s.annotated ? { annotations: { 'haproxy-haptic.org/timeout-server': '5s' } } : {}),
    },
    spec: {
      ingressClassName: s.ours ? 'haptic' : 'other',
      ...(s.defaultBackend
        ? { defaultBackend: { service: { name: s.svc, port: { number: 81 } } } }
        : {}),
      ...(s.tls ? { tls: [{ hosts: ['x.com'], secretName: `t-${s.name}` }] } : {}),
      rules: [
        {
          host: s.host === 'own' ? `${s.name}.${s.namespace}.com` : s.host,
          http: {
            paths: s.paths.map((p) => ({
              path: p,
              pathType: s.type,
              backend: { service: { name: s.svc, port: { number: 80 } } },
            })),
          },
        },
      ],
    },
  });
  const step = fc.oneof(
    { weight: 3, arbitrary: shape.map((s) => ({ upsert: ingressOf(s) })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('a', 'b'), fc.constantFrom('i0', 'i1', 'i2', 'i3'))
        .map(([ns, name]) => ({ remove: `${ns}/${name}` })),
    },
    // a render that leaves objects out (a quarantine retry): every n-th Ingress
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }).map((every) => ({ every })) },
  );

  it('gives the same model and problems as a full build after any changes', () => {
    const updatedBefore = INGRESS_MODEL_COUNTS.updated;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        const objects = new Map<string, object>();
        for (const s of steps) {
          let every = 0;
          if ('upsert' in s) {
            const m = s.upsert.metadata;
            objects.set(`${m.namespace}/${m.name}`, s.upsert);
          } else if ('remove' in s) objects.delete(s.remove);
          else every = s.every;
          // as a snapshot lists them: by namespace/name
          let ingresses = [...objects.keys()].sort().map((k) => objects.get(k) as object);
          if (every > 0) ingresses = ingresses.filter((_, i) => i % every !== 0);
          const inputs = { ingresses, ingressClasses: classes, controllerName: CONTROLLER };
          const full = ingressModel(inputs, { reuse: false });
          const reused = ingressModel(inputs);
          expect(reused).toEqual(full);
        }
      }),
      { numRuns: 300, seed: Number(process.env['FC_SEED'] ?? 20261202) },
    );
    // the update (not only full builds) is what was compared
    expect(INGRESS_MODEL_COUNTS.updated - updatedBefore).toBeGreaterThan(500);
  });
});
