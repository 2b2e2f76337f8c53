// Pieces the ingress-nginx library specs that run HAProxy on 127.0.0.1 share: named backends,
// one GET through HAProxy, and a Service with one 127.0.0.1 endpoint.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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

/** One GET to HAProxy on 127.0.0.1 (5 s timeout): the status and the headers. */
export function get(
  port: number,
  host: string,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 5_000 },
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
