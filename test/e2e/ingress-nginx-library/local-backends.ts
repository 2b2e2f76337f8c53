// Pieces the ingress-nginx library specs that run HAProxy on 127.0.0.1 share: named backends,
// one GET through HAProxy, a Service with one 127.0.0.1 endpoint, and the library's render.
import { mkdtemp } from 'node:fs/promises';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { freePort } from '#testbed/testing';
import { assembleLibrary, renderTree, writeManifests } from '../ingress-library/library.js';

/**
 * The ingress-nginx library rendered over `objects` (with the IngressClass `nginx` of
 * ingress-nginx's controller) in a tree under `base`, on a free HTTP port: haproxy.cfg and the port.
 */
export async function renderNginx(
  base: string,
  objects: readonly object[],
  settings: Readonly<Record<string, unknown>> = {},
): Promise<{ cfg: string; http: number }> {
  const out = await mkdtemp(join(base, 'tree-'));
  const http = await freePort();
  const stats = await freePort();
  const config = await assembleLibrary(
    await mkdtemp(join(base, 'cfg-')),
    (r) => {
      const extra = (r.spec['templatingSettings'] as { extraContext: Record<string, unknown> })
        .extraContext;
      Object.assign(extra, settings, { http_port: http, stats_port: stats });
      r.spec['dataplane'] = {
        mapsDir: join(out, 'maps'),
        sslCertsDir: join(out, 'ssl'),
        generalStorageDir: join(out, 'files'),
      };
    },
    'ingress-nginx',
  );
  const ingressClass = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name: 'nginx' },
    spec: { controller: 'k8s.io/ingress-nginx' },
  };
  const manifests = await writeManifests(base, [ingressClass, ...objects]);
  const tree = await renderTree(base, config, manifests, out);
  return { cfg: tree.get('haproxy.cfg') ?? '', http };
}

/** A backend answering 200 with its name in X-Backend. */
export async function startBackend(name: string): Promise<{ port: number; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'x-backend': name, 'content-type': 'text/plain' });
      res.end(name);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

/** One GET / to HAProxy on 127.0.0.1 (5 s timeout) with `headers`: the status and the headers. */
export function get(
  port: number,
  host: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', headers: { host, ...headers }, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${host} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** A Service `name` with this cluster IP and port, its EndpointSlice one 127.0.0.1 at `endpointPort`. */
export function service(
  ns: string,
  name: string,
  clusterIP: string,
  port: number,
  endpointPort: number,
): object[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: ns },
      spec: { clusterIP, ports: [{ name: 'http', port, targetPort: endpointPort }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-1`,
        namespace: ns,
        labels: { 'kubernetes.io/service-name': name },
      },
      addressType: 'IPv4',
      ports: [{ name: 'http', port: endpointPort }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
  ];
}
