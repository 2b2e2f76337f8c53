import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A started HTTP listener and how to stop it. */
export interface Listener {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts a plain HTTP server (an extra listener over the one Nest context). */
export async function listen(
  address: string,
  port: number,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Listener> {
  const server: Server = createServer(handler);
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
