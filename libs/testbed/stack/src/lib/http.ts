import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { PeerCertificate } from 'node:tls';

/** One request through HAProxy: the connection goes to `address:port`, `host` is the Host header (and SNI). */
export interface Probe {
  readonly address: string;
  readonly port: number;
  readonly host: string;
  readonly path?: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * HTTPS: SNI is `host` (unless it is empty), the certificate is verified against `ca`, and its
   * name by `checkServerIdentity` when given (Node's own check otherwise).
   */
  readonly tls?: {
    readonly ca: string;
    readonly checkServerIdentity?: (host: string, cert: PeerCertificate) => Error | undefined;
  };
  readonly timeoutMs?: number;
}

/** What came back: status, HTTP version, headers (lower-case) and body. */
export interface Reply {
  readonly status: number;
  readonly httpVersion: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
  /** The response's header lines as received (name, value, name, value, …), repeats kept apart. */
  readonly rawHeaders?: readonly string[];
  /** The server certificate's subject alt names on HTTPS (`DNS:a, DNS:b`). */
  readonly peerAltNames?: string;
}

/** Sends one request without keep-alive (node:http: fetch cannot set Host). */
export function send(p: Probe): Promise<Reply> {
  const options = {
    host: p.address,
    port: p.port,
    path: p.path ?? '/',
    method: p.method ?? 'GET',
    headers: { ...(p.host ? { host: p.host } : {}), ...p.headers },
    agent: false as const,
    ...(p.tls
      ? {
          ca: p.tls.ca,
          ...(p.host ? { servername: p.host } : {}),
          ...(p.tls.checkServerIdentity ? { checkServerIdentity: p.tls.checkServerIdentity } : {}),
        }
      : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (p.tls ? httpsRequest : httpRequest)(options, (res) => {
      let body = '';
      const socket = res.socket as { getPeerCertificate?: () => { subjectaltname?: string } };
      const alt = socket.getPeerCertificate?.().subjectaltname;
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          httpVersion: res.httpVersion,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          ...(alt ? { peerAltNames: alt } : {}),
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(p.timeoutMs ?? 5000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Polls `check` every `intervalMs` until it returns a value; fails naming `what` and the last
 * error. `what` may be a function, read at the time-out, to say what the checks last saw.
 */
export async function waitFor<T>(
  what: string | (() => string),
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}${last instanceof Error ? `: ${last.message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
