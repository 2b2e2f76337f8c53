import { request as httpRequest, createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

/** A tiny echo backend standing for one Service: answers 200 with its name and what it saw. */
export interface EchoBackend {
  readonly service: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts an echo backend on 127.0.0.1, port 0; `id` tells replicas of one Service apart. */
export function startEcho(service: string, id = service): Promise<EchoBackend> {
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'x-service': service, 'x-pod': id });
    res.end(
      JSON.stringify({
        service,
        pod: id,
        host: req.headers.host,
        path: req.url,
        method: req.method,
      }),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        service,
        port,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/** What a request through HAProxy came back with. */
export interface Answer {
  readonly status: number;
  readonly service?: string;
  readonly pod?: string;
  readonly host?: string;
  readonly path?: string;
}

export interface Ask {
  readonly port: number;
  readonly host: string;
  readonly path: string;
  readonly method?: string;
  /** For HTTPS: SNI is the host, the certificate is verified against `ca`. */
  readonly tls?: { readonly ca: string };
}

/** One request to HAProxy on 127.0.0.1 (bounded by a 5 s timeout). */
export function ask(a: Ask): Promise<Answer> {
  const options = {
    host: '127.0.0.1',
    port: a.port,
    path: a.path,
    method: a.method ?? 'GET',
    headers: { host: a.host },
    timeout: 5_000,
    ...(a.tls ? { servername: a.host, ca: a.tls.ca } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (a.tls ? httpsRequest : httpRequest)(options, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status !== 200) return resolve({ status });
        const seen = JSON.parse(body) as Omit<Answer, 'status'>;
        resolve({ status, ...seen });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`request to ${a.host}${a.path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
