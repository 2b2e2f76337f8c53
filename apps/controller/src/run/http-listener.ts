import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** The HTTP listeners of one controller process, all over the one Nest application. */
export type ListenerName = 'health' | 'metrics';

/** Path prefixes a listener owns; the health listener serves every path no other one owns. */
const OWNED: Readonly<Record<Exclude<ListenerName, 'health'>, readonly string[]>> = {
  metrics: ['/metrics'],
};

const LISTENER = Symbol.for('haptic.listener');
type Tagged = IncomingMessage & { [LISTENER]?: ListenerName };

/** The listener whose routes include `path`. */
export function ownerOf(path: string): ListenerName {
  for (const [name, prefixes] of Object.entries(OWNED) as [ListenerName, string[]][])
    if (prefixes.some((p) => path === p || path.startsWith(`${p}/`))) return name;
  return 'health';
}

/**
 * Express middleware installed before any route: a request is answered only on the listener
 * that owns its path (metrics on the metrics port, health and /debug on the health port), 404
 * elsewhere.
 */
export function routeByListener(): (
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
) => void {
  return (req, res, next) => {
    const listener = (req as Tagged)[LISTENER] ?? 'health';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (ownerOf(path) === listener) {
      next();
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ statusCode: 404, message: `${path} is not served on this port` }));
  };
}

/** A started listener and how to stop it. */
export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts an extra HTTP server named `name` over the Nest application's request handler. */
export async function listen(
  name: ListenerName,
  address: string,
  port: number,
  app: RequestListener,
): Promise<Listener> {
  const server: Server = createServer((req, res) => {
    (req as Tagged)[LISTENER] = name;
    app(req, res);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
