import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificate } from '../haproxy/fixtures.js';
import { assembleLibrary, changedFiles, renderTree, tempBase, writeManifests } from './library.js';
import { changedLineCount, nonRuntimeDifferences } from './server-lines.js';

// The library's reload-free contract, checked on the real `haptic render` of the assembled
// library: a new host on an existing Service changes only map files; an endpoint change changes
// only server lines, and only in what the runtime API sets (address, port, weight, state).

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function ingress(name: string, hosts: readonly string[], annotations: Record<string, string> = {}) {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: 'apps', creationTimestamp: '2024-01-01T00:00:00Z', annotations },
    spec: {
      ingressClassName: 'haptic',
      tls: [{ hosts: ['a.example.com'], secretName: 'site-tls' }],
      rules: hosts.map((host) => ({
        host,
        http: {
          paths: [
            {
              path: '/',
              pathType: 'Prefix',
              backend: { service: { name: 'echo', port: { number: 8080 } } },
            },
            {
              path: '/exact',
              pathType: 'Exact',
              backend: { service: { name: 'echo', port: { name: 'http' } } },
            },
          ],
        },
      })),
    },
  };
}

type Endpoint = { ip: string; ready?: boolean; serving?: boolean; terminating?: boolean };

function slice(endpoints: readonly Endpoint[]) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: 'echo-1',
      namespace: 'apps',
      labels: { 'kubernetes.io/service-name': 'echo' },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080 }],
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: {
        ready: e.ready ?? true,
        serving: e.serving ?? true,
        terminating: e.terminating ?? false,
      },
    })),
  };
}

function world(
  ingresses: readonly object[],
  endpoints: readonly Endpoint[],
  tls: { cert: string; key: string },
) {
  const secret = (name: string, ns: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': b64(tls.cert), 'tls.key': b64(tls.key) },
  });
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'haptic' },
      spec: { controller: 'haproxy-haptic.org/ingress-controller' },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'echo', namespace: 'apps' },
      spec: { ports: [{ name: 'http', port: 8080 }] },
    },
    secret('default-tls', 'haptic'),
    secret('site-tls', 'apps'),
    slice(endpoints),
    ...ingresses,
  ];
}

const THREE: Endpoint[] = [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }, { ip: '10.1.0.3' }];

describe('the Ingress library renders reload-free changes', () => {
  let base: string;
  let config: string;
  let tls: { cert: string; key: string };
  const render = async (objects: readonly object[]) =>
    renderTree(base, config, await writeManifests(base, objects));

  beforeAll(async () => {
    base = await tempBase();
    tls = makeCertificate('a.example.com');
    config = await assembleLibrary(base, (r) => {
      const settings = r.spec['templatingSettings'] as { extraContext: Record<string, unknown> };
      settings.extraContext['default_certificate'] = 'haptic/default-tls';
    });
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  it('a host added to an existing Ingress and Service changes only map files', async () => {
    const before = await render(world([ingress('web', ['a.example.com'])], THREE, tls));
    const after = await render(
      world([ingress('web', ['a.example.com', 'b.example.com'])], THREE, tls),
    );
    expect(changedFiles(before, after)).toEqual(['maps/exact.map', 'maps/prefix.map']);
    expect(after.get('maps/prefix.map')).toContain('b.example.com/ svc_apps_echo_8080\n');
    expect(after.get('maps/exact.map')).toContain('b.example.com/exact svc_apps_echo_http\n');
  });

  it('a new Ingress (no annotations) for an existing Service changes only map files', async () => {
    const before = await render(world([ingress('web', ['a.example.com'])], THREE, tls));
    const after = await render(
      world([ingress('web', ['a.example.com']), ingress('web2', ['c.example.com'])], THREE, tls),
    );
    expect(changedFiles(before, after)).toEqual(['maps/exact.map', 'maps/prefix.map']);
  });

  it('a host added to an annotated Ingress changes only map files', async () => {
    const limited = { 'haproxy-haptic.org/rate-limit-rps': '10' };
    const before = await render(world([ingress('web', ['a.example.com'], limited)], THREE, tls));
    const after = await render(
      world([ingress('web', ['a.example.com', 'd.example.com'], limited)], THREE, tls),
    );
    expect(changedFiles(before, after)).toEqual(['maps/exact.map', 'maps/prefix.map']);
    expect(after.get('maps/prefix.map')).toContain('d.example.com/ ing_apps_web_echo_8080\n');
  });

  it('endpoint changes touch only server lines, in what the runtime API sets', async () => {
    const ing = [ingress('web', ['a.example.com'])];
    const before = await render(world(ing, THREE, tls));
    const after = await render(
      world(
        ing,
        [
          { ip: '10.1.0.1' },
          { ip: '10.1.0.3', ready: false, serving: true, terminating: true },
          { ip: '10.1.0.4' },
          { ip: '10.1.0.5' },
        ],
        tls,
      ),
    );
    expect(changedFiles(before, after)).toEqual(['haproxy.cfg']);
    const cfgBefore = before.get('haproxy.cfg') ?? '';
    const cfgAfter = after.get('haproxy.cfg') ?? '';
    expect(nonRuntimeDifferences(cfgBefore, cfgAfter)).toEqual([]);
    // 10.1.0.2 left, 10.1.0.3 drains, 10.1.0.4 and .5 joined (filling a free slot).
    expect(changedLineCount(cfgBefore, cfgAfter)).toBeGreaterThanOrEqual(3);
    expect(cfgAfter).toMatch(/^ {2}server srv2 10\.1\.0\.3:8080 weight 0$/m);
    expect(cfgAfter).toMatch(/^ {2}server srv4 10\.1\.0\.5:8080 weight 1$/m);
  });

  it('all endpoints gone leaves every slot, disabled (a runtime change too)', async () => {
    const ing = [ingress('web', ['a.example.com'])];
    // Offline there is no previous deployment to keep the slot count from, so this starts from
    // the library's minimum (server_slots: 2, both filled); the controller keeps the deployed
    // count instead (zero-reload.spec.ts).
    const before = await render(world(ing, THREE.slice(0, 2), tls));
    const after = await render(world(ing, [], tls));
    expect(changedFiles(before, after)).toEqual(['haproxy.cfg']);
    expect(
      nonRuntimeDifferences(before.get('haproxy.cfg') ?? '', after.get('haproxy.cfg') ?? ''),
    ).toEqual([]);
  });

  it('the checker itself refuses differences the runtime API cannot apply', () => {
    const a = 'backend b\n  balance roundrobin\n  server srv1 10.0.0.1:80 weight 1\n';
    expect(nonRuntimeDifferences(a, a.replace('roundrobin', 'leastconn'))).toHaveLength(1);
    expect(nonRuntimeDifferences(a, a.replace('srv1', 'srv9'))).toHaveLength(1);
    expect(nonRuntimeDifferences(a, a.replace('weight 1', 'check weight 1'))).toHaveLength(1);
    expect(nonRuntimeDifferences(a, `${a}  server srv2 10.0.0.2:80 weight 1\n`)).not.toEqual([]);
    expect(
      nonRuntimeDifferences(a, a.replace('10.0.0.1:80 weight 1', '0.0.0.0:1 weight 1 disabled')),
    ).toEqual([]);
  });
});
