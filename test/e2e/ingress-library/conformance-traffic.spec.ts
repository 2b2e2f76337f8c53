import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeForMajors, freePort, startHaproxy, type HaproxyUnderTest } from '#testbed/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';
import { assembleLibrary, renderTree, tempBase, writeManifests } from './library.js';
import { ask, startEcho, type EchoBackend } from './traffic.js';

// The Ingress conformance scenarios (host rules, path rules, ingress class, default backend,
// load balancing) as real requests through a real HAProxy running the library's render.

const NS = 'conformance';
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function serviceObjects(name: string, echoes: readonly EchoBackend[]): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-1`,
        namespace: NS,
        labels: { 'kubernetes.io/service-name': name },
      },
      addressType: 'IPv4',
      // Every echo listens on its own port of 127.0.0.1; one slice port per port is how a
      // real slice would look for pods on one node with distinct ports.
      ports: [{ name: 'http', port: echoes[0]?.port ?? 1 }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
    ...echoes.slice(1).map((e, i) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-${i + 2}`,
        namespace: NS,
        labels: { 'kubernetes.io/service-name': name },
      },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: e.port }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    })),
  ];
}

const prefix = (
  path: string,
  service: string,
  type = 'Prefix',
  port: object = { number: 8080 },
) => ({
  path,
  pathType: type,
  backend: { service: { name: service, port } },
});

const ingress = (name: string, spec: object) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, namespace: NS, creationTimestamp: '2024-01-01T00:00:00Z' },
  spec,
});

interface World {
  readonly haproxy: HaproxyUnderTest;
  readonly http: number;
  readonly https: number;
}

/** Renders the library for `objects` with the real `haptic render` and starts HAProxy on it. */
async function serve(
  bin: string,
  base: string,
  objects: readonly object[],
  tls: { cert: string; key: string },
): Promise<World> {
  const out = await mkdtemp(join(base, 'tree-'));
  const [http, https, stats] = [await freePort(), await freePort(), await freePort()];
  const config = await assembleLibrary(await mkdtemp(join(base, 'cfg-')), (r) => {
    const extra = (r.spec['templatingSettings'] as { extraContext: Record<string, unknown> })
      .extraContext;
    Object.assign(extra, {
      http_port: http,
      https_port: https,
      stats_port: stats,
      default_certificate: 'haptic/default-tls',
    });
    r.spec['dataplane'] = {
      mapsDir: join(out, 'maps'),
      sslCertsDir: join(out, 'ssl'),
      generalStorageDir: join(out, 'files'),
    };
  });
  const secret = (name: string, ns: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
  });
  const all = [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: 'haproxy-haptic.org/ingress-controller' },
    },
    secret('default-tls', 'haptic'),
    secret('conformance-tls', NS),
    ...objects,
  ];
  const tree = await renderTree(base, config, await writeManifests(base, all), out);
  const cfg = tree.get('haproxy.cfg') ?? '';
  const haproxy = await startHaproxy({ bin, config: () => cfg });
  return { haproxy, http, https };
}

describeForMajors(['2.6', '3.0'], 'Ingress conformance through HAProxy', (install) => {
  let base: string;
  let echoes: EchoBackend[] = [];
  let rules: World;
  let fallback: World;
  let ca: string;

  beforeAll(async () => {
    process.env['POD_IP'] = '127.0.0.1'; // binds stay on loopback
    base = await tempBase();
    const tls = makeCertificate('foo.bar.com');
    ca = tls.cert;
    const names = [
      'wildcard-foo-com',
      'foo-bar-com',
      'foo-exact',
      'foo-prefix',
      'aaa-slash-bbb-prefix',
      'aaa-prefix',
      'aaa-slash-bbb-slash-prefix',
      'foo-slash-exact',
      'ingress-class-prefix',
    ];
    const single = await Promise.all(names.map((n) => startEcho(n)));
    const pods = await Promise.all(
      Array.from({ length: 10 }, (_, i) => startEcho('echo-service', `pod-${i}`)),
    );
    echoes = [...single, ...pods];
    const services = [...single.flatMap((e) => serviceObjects(e.service, [e]))];
    rules = await serve(
      install.bin,
      base,
      [
        ...services,
        ingress('host-rules', {
          ingressClassName: 'haptic',
          tls: [{ hosts: ['foo.bar.com'], secretName: 'conformance-tls' }],
          rules: [
            { host: '*.foo.com', http: { paths: [prefix('/', 'wildcard-foo-com')] } },
            {
              host: 'foo.bar.com',
              http: { paths: [prefix('/', 'foo-bar-com', 'Prefix', { name: 'http' })] },
            },
          ],
        }),
        ingress('path-rules', {
          ingressClassName: 'haptic',
          rules: [
            { host: 'exact-path-rules', http: { paths: [prefix('/foo', 'foo-exact', 'Exact')] } },
            {
              host: 'prefix-path-rules',
              http: {
                paths: [
                  prefix('/foo', 'foo-prefix'),
                  prefix('/aaa/bbb', 'aaa-slash-bbb-prefix'),
                  prefix('/aaa', 'aaa-prefix'),
                ],
              },
            },
            {
              host: 'mixed-path-rules',
              http: { paths: [prefix('/foo', 'foo-prefix'), prefix('/foo', 'foo-exact', 'Exact')] },
            },
            {
              host: 'trailing-slash-path-rules',
              http: {
                paths: [
                  prefix('/aaa/bbb/', 'aaa-slash-bbb-slash-prefix'),
                  prefix('/foo/', 'foo-slash-exact', 'Exact'),
                ],
              },
            },
          ],
        }),
        ingress('test-ingress-class', {
          ingressClassName: 'some-invalid-class-name',
          rules: [
            { host: 'ingress-class', http: { paths: [prefix('/', 'ingress-class-prefix')] } },
          ],
        }),
      ],
      tls,
    );
    fallback = await serve(
      install.bin,
      base,
      [
        ...serviceObjects('echo-service', pods),
        ingress('default-backend', {
          ingressClassName: 'haptic',
          defaultBackend: { service: { name: 'echo-service', port: { number: 8080 } } },
        }),
      ],
      tls,
    );
  });

  afterAll(async () => {
    await rules?.haproxy.stop();
    await fallback?.haproxy.stop();
    await Promise.all(echoes.map((e) => e.close()));
    await rm(base, { recursive: true, force: true });
  });

  const get = (host: string, path: string) => ask({ port: rules.http, host, path });

  it('host rules: exact host over HTTP and over HTTPS (SNI, verified certificate)', async () => {
    expect(await get('foo.bar.com', '/')).toMatchObject({
      status: 200,
      service: 'foo-bar-com',
      host: 'foo.bar.com',
    });
    const secure = await ask({ port: rules.https, host: 'foo.bar.com', path: '/', tls: { ca } });
    expect(secure).toMatchObject({ status: 200, service: 'foo-bar-com', host: 'foo.bar.com' });
    expect((await get('subdomain.bar.com', '/')).status).toBe(404);
  });

  it('host rules: a wildcard covers exactly one label', async () => {
    expect(await get('bar.foo.com', '/')).toMatchObject({
      status: 200,
      service: 'wildcard-foo-com',
      host: 'bar.foo.com',
    });
    expect((await get('baz.bar.foo.com', '/')).status).toBe(404);
    expect((await get('foo.com', '/')).status).toBe(404);
  });

  it('path rules: Exact matches only the exact, case-sensitive path', async () => {
    expect(await get('exact-path-rules', '/foo')).toMatchObject({
      status: 200,
      service: 'foo-exact',
    });
    for (const path of ['/foo/', '/FOO', '/bar'])
      expect((await get('exact-path-rules', path)).status, path).toBe(404);
  });

  it('path rules: Prefix matches element-wise, longest first, case-sensitive', async () => {
    const cases: [string, string | 404][] = [
      ['/foo', 'foo-prefix'],
      ['/foo/', 'foo-prefix'],
      ['/FOO', 404],
      ['/aaa/bbb', 'aaa-slash-bbb-prefix'],
      ['/aaa/bbb/ccc', 'aaa-slash-bbb-prefix'],
      ['/aaa/ccc', 'aaa-prefix'],
      ['/aaaccc', 404],
    ];
    for (const [path, want] of cases) {
      const got = await get('prefix-path-rules', path);
      if (want === 404) expect(got.status, path).toBe(404);
      else expect(got, path).toMatchObject({ status: 200, service: want, path });
    }
  });

  it('path rules: Exact is preferred over Prefix; trailing slashes as the specification says', async () => {
    expect(await get('mixed-path-rules', '/foo')).toMatchObject({
      status: 200,
      service: 'foo-exact',
    });
    expect(await get('mixed-path-rules', '/foo/x')).toMatchObject({
      status: 200,
      service: 'foo-prefix',
    });
    expect(await get('trailing-slash-path-rules', '/aaa/bbb')).toMatchObject({
      service: 'aaa-slash-bbb-slash-prefix',
    });
    expect(await get('trailing-slash-path-rules', '/aaa/bbb/')).toMatchObject({
      service: 'aaa-slash-bbb-slash-prefix',
    });
    expect((await get('trailing-slash-path-rules', '/foo')).status).toBe(404);
    expect(await get('trailing-slash-path-rules', '/foo/')).toMatchObject({
      service: 'foo-slash-exact',
    });
  });

  it('ingress class: an Ingress of an unknown class is not served', async () => {
    expect((await get('ingress-class', '/')).status).toBe(404);
  });

  it('default backend: every method, host and path reaches it', async () => {
    const cases: [string, string, string][] = [
      ['GET', 'my-host', '/'],
      ['GET', 'my-host', '/sub-path'],
      ['POST', 'some-host', '/'],
      ['PUT', 'other', '/resource'],
      ['DELETE', 'some-host', '/resource'],
      ['PATCH', 'my-host', '/resource'],
    ];
    for (const [method, host, path] of cases) {
      const got = await ask({ port: fallback.http, host, path, method });
      expect(got, `${method} ${host}${path}`).toMatchObject({
        status: 200,
        service: 'echo-service',
        path,
      });
    }
  });

  it('load balancing: 100 requests reach all 10 endpoints', async () => {
    const pods = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const got = await ask({ port: fallback.http, host: 'load-balancing', path: '/' });
      expect(got.status).toBe(200);
      pods.add(got.pod ?? '');
    }
    expect(pods.size).toBe(10);
  });
});
