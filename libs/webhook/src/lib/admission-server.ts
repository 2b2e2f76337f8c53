import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MalformedReviewError } from './admission-review.js';
import type { KeyPair } from './certificate-files.js';

/** Answers a request body (a parsed JSON value) with a JSON value; MalformedReviewError → 400, other errors → 500. */
export type JsonHandler = (body: unknown) => Promise<unknown>;

export interface AdmissionServerOptions {
  readonly address: string;
  readonly port: number;
  readonly pair: KeyPair;
  /** The path the ValidatingWebhookConfiguration calls (default `/validate`). */
  readonly path?: string;
  /** Request bodies over this are refused with 413 (default 3 MiB, the API server's own limit). */
  readonly maxBodyBytes?: number;
  /** A request not answered within this gets a 503 (default 9 s, inside the default 10 s timeout). */
  readonly timeoutMs?: number;
}

/** A listening admission server. */
export interface AdmissionServer {
  readonly port: number;
  /** Serves a new certificate to new connections (a rotation). */
  setKeyPair(pair: KeyPair): void;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(new HttpError(413, `request body over ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(413, `request body over ${limit} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  o: AdmissionServerOptions,
  handle: JsonHandler,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== (o.path ?? '/validate')) throw new HttpError(404, `${path} is not served here`);
  if (req.method !== 'POST') throw new HttpError(405, `${req.method ?? ''} is not allowed`);
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/json'))
    throw new HttpError(415, `content-type ${type || '(none)'} is not application/json`);
  const body = await readBody(req, o.maxBodyBytes ?? 3 * 1024 * 1024);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (e) {
    throw new HttpError(400, `body is not JSON: ${(e as Error).message}`);
  }
  send(res, 200, await handle(parsed));
}

/** Starts the HTTPS admission server (TLS only) handing each JSON body to `handle`. */
export async function startAdmissionServer(
  o: AdmissionServerOptions,
  handle: JsonHandler,
): Promise<AdmissionServer> {
  const server: Server = createServer({ cert: o.pair.cert, key: o.pair.key }, (req, res) => {
    res.setTimeout(o.timeoutMs ?? 9_000, () =>
      send(res, 503, { message: 'the admission review took too long' }),
    );
    answer(req, res, o, handle).catch((e: unknown) => {
      // a malformed review is the caller's fault; anything else is ours (failurePolicy decides)
      const status =
        e instanceof HttpError ? e.status : e instanceof MalformedReviewError ? 400 : 500;
      send(res, status, { message: (e as Error).message });
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.address, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    setKeyPair: (pair) => server.setSecureContext({ cert: pair.cert, key: pair.key }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
