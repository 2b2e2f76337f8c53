import { readFile } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2, { type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Server, Socket } from 'node:net';
import { TLSSocket, type PeerCertificate } from 'node:tls';
import type { EchoConfig, EchoContext, EchoTlsFiles } from './echo-config.js';
import { EchoStartError } from './echo.errors.js';
import { answerHttpbun, httpbunDelay } from './httpbun.js';
import {
  buildRequestAssertions,
  echoSetHeaders,
  parseGoDuration,
  type TlsAssertions,
} from './request-assertions.js';

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

/** One listening socket of a running echo server. */
export interface EchoListener {
  readonly kind: 'http' | 'h2c' | 'https' | 'grpc' | 'grpc-tls';
  readonly address: string;
  readonly port: number;
}

/** A running echo server: where it listens, and how to stop it. */
export interface RunningEcho {
  readonly listeners: readonly EchoListener[];
  close(): Promise<void>;
}

function toPem(raw: Buffer): string {
  const b64 = raw.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}-----END CERTIFICATE-----\n`;
}

/** The peer's certificate chain as PEM blocks, leaf first. */
export function peerChainPem(leaf: PeerCertificate | undefined): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let cert = leaf as (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined;
  while (cert?.raw !== undefined && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    out.push(toPem(cert.raw));
    cert = cert.issuerCertificate;
  }
  return out;
}

function tlsOf(socket: TLSSocket): TlsAssertions {
  const peers = peerChainPem(socket.getPeerCertificate(true));
  const alpn = socket.alpnProtocol;
  return {
    version: socket.getProtocol() ?? '',
    ...(peers.length > 0 ? { peerCertificates: peers } : {}),
    serverName: (socket as TLSSocket & { servername?: string | false }).servername || '',
    ...(typeof alpn === 'string' && alpn !== '' ? { negotiatedProtocol: alpn } : {}),
    cipherSuite: socket.getCipher().standardName,
  };
}

function socketOf(req: AnyRequest): Socket | undefined {
  // HTTP/2's compat socket is a proxy; the session's own socket answers TLS questions.
  return 'stream' in req ? req.stream.session?.socket : req.socket;
}

function sendJson(res: AnyResponse, code: number, body: unknown): void {
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(JSON.stringify(body, null, 1));
}

function echo(req: AnyRequest, res: AnyResponse, context: EchoContext): void {
  const socket = socketOf(req);
  const uri = req.url ?? '/';
  const host =
    'authority' in req && req.authority !== '' ? req.authority : (req.headers.host ?? '');
  const assertions = buildRequestAssertions(
    {
      uri,
      host,
      method: req.method ?? 'GET',
      httpVersion: req.httpVersion,
      rawHeaders: req.rawHeaders,
      ...(socket?.remoteAddress === undefined ? {} : { remoteAddress: socket.remoteAddress }),
      ...(socket instanceof TLSSocket ? { tls: tlsOf(socket) } : {}),
    },
    context,
  );
  const set = req.headers['x-echo-set-header'];
  for (const [name, value] of echoSetHeaders(set === undefined ? [] : [set].flat())) {
    res.setHeader(name, value);
  }
  sendJson(res, 200, assertions);
}

/**
 * An external-auth service (ingress-nginx's auth-url): answers the status of `/auth/NNN`, else
 * of the request's X-Auth-Status header (the client's, forwarded by the proxy), else 200, with
 * the JSON of what it saw; a 2xx carries X-User and X-Email (X-Auth-User's value, else "alice")
 * and X-Seen-<name> with the X-Original-URL, -Method, X-Sent-From, X-Auth-Request-Redirect seen
 * (X-Seen-Method: the method of the subrequest itself).
 * `/auth/cookies/set/<name>/<value>` also sets that cookie (the auth service of ingress-nginx's
 * e2e "cookie set by external authentication server"); the headers named in X-Auth-Echo
 * (comma-separated) are answered as X-Seen-<name> too, to show what the proxy sent.
 */
const SEEN = ['x-original-url', 'x-original-method', 'x-sent-from', 'x-auth-request-redirect'];

const AUTH_COOKIE = /^\/auth\/cookies\/set\/([A-Za-z0-9_-]{1,64})\/([A-Za-z0-9_-]{1,256})$/;

function authAnswer(req: AnyRequest, res: AnyResponse, path: string): void {
  const cookie = AUTH_COOKIE.exec(path);
  if (cookie) res.setHeader('Set-Cookie', `${cookie[1]}=${cookie[2]}`);
  const fromPath = /^\/auth\/(\d\d\d)$/.exec(path)?.[1];
  const header = req.headers['x-auth-status'];
  const wanted = fromPath ?? (typeof header === 'string' ? header : '200');
  const code = /^[1-5]\d\d$/.test(wanted) ? Number(wanted) : 400;
  if (code >= 200 && code < 300) {
    const user = req.headers['x-auth-user'];
    const name = typeof user === 'string' && /^[a-z0-9]{1,32}$/.test(user) ? user : 'alice';
    res.setHeader('X-User', name);
    res.setHeader('X-Email', `${name}@example.com`);
    // what the proxy's subrequest carried, for a test to read from the upstream's side
    res.setHeader('X-Seen-Method', req.method ?? '');
    for (const h of SEEN) {
      const v = req.headers[h];
      if (typeof v === 'string') res.setHeader(`X-Seen-${h.slice(2)}`, v);
    }
    const echoed = req.headers['x-auth-echo'];
    for (const h of typeof echoed === 'string' ? echoed.split(',') : []) {
      const name = h.trim().toLowerCase();
      const v = /^[a-z0-9-]{1,64}$/.test(name) ? req.headers[name] : undefined;
      if (typeof v === 'string') res.setHeader(`X-Seen-${name}`, v);
    }
  }
  sendJson(res, code, { method: req.method, uri: req.url, headers: req.headers });
}

/**
 * Routes one request: `/health`, `/status/NNN`, `/auth[/NNN]` (an external-auth service),
 * otherwise the echo (with optional `?delay=`).
 */
export function handleEchoRequest(req: AnyRequest, res: AnyResponse, context: EchoContext): void {
  const url = new URL(req.url ?? '/', 'http://echo.invalid');
  const path = url.pathname.replaceAll('//', '/');
  if (path === '/health') {
    res.statusCode = 200;
    res.end('OK');
    return;
  }
  if (path.startsWith('/status/')) {
    const m = /^\/status\/(\d\d\d)$/.exec(req.url ?? '');
    res.statusCode = m?.[1] === undefined ? 400 : Number(m[1]);
    res.end();
    return;
  }
  if (path === '/auth' || path.startsWith('/auth/')) {
    authAnswer(req, res, path);
    return;
  }
  const delay = url.searchParams.get('delay');
  if (delay !== null && delay !== '') {
    const ms = parseGoDuration(delay);
    if (ms === undefined) {
      sendJson(res, 500, { message: `time: invalid duration ${JSON.stringify(delay)}` });
      return;
    }
    setTimeout(() => echo(req, res, context), ms).unref();
    return;
  }
  echo(req, res, context);
}

type Handler = (req: AnyRequest, res: AnyResponse) => void;

/** The request handler of a configuration: the echo, or httpbun's routes in front of it. */
function handlerOf(config: EchoConfig): Handler {
  const context = config.context;
  if (config.profile !== 'httpbun') return (req, res) => handleEchoRequest(req, res, context);
  return (req, res) => {
    const delay = httpbunDelay(req.url ?? '/');
    if (delay !== undefined) {
      setTimeout(() => echo(req, res, context), delay * 1000).unref();
      return;
    }
    if (!answerHttpbun(req, res, context)) handleEchoRequest(req, res, context);
  };
}

function listen(server: Server, address: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error): void =>
      reject(new EchoStartError(`cannot listen on ${address}:${port}: ${e.message}`, { cause: e }));
    server.once('error', onError);
    server.listen(port, address, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Closes a server and drops its open connections (keep-alive and HTTP/2 sessions would hold it open). */
function closer(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
}

async function secureServer(tls: EchoTlsFiles, handle: Handler): Promise<Server> {
  const [cert, key, ca] = await Promise.all([
    readFile(tls.certFile),
    readFile(tls.keyFile),
    tls.clientCaFile === undefined ? undefined : readFile(tls.clientCaFile),
  ]).catch((e: unknown) => {
    throw new EchoStartError(
      `cannot read TLS files: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    );
  });
  // Client certificates are verified when sent but not required (Go's VerifyClientCertIfGiven).
  const server = http2.createSecureServer(
    {
      cert,
      key,
      allowHTTP1: true,
      ...(ca === undefined ? {} : { ca, requestCert: true, rejectUnauthorized: false }),
    },
    handle,
  );
  if (ca !== undefined) {
    server.on('secureConnection', (socket: TLSSocket) => {
      if (socket.getPeerCertificate().raw !== undefined && !socket.authorized) socket.destroy();
    });
  }
  return server;
}

/** Starts the HTTP echo listeners the configuration asks for: HTTP, and h2c and HTTPS when set. */
export async function startHttpEcho(config: EchoConfig): Promise<RunningEcho> {
  const closers: (() => Promise<void>)[] = [];
  const listeners: EchoListener[] = [];
  const add = async (kind: EchoListener['kind'], server: Server, port: number): Promise<void> => {
    closers.push(closer(server));
    listeners.push({
      kind,
      address: config.address,
      port: await listen(server, config.address, port),
    });
  };
  const close = async (): Promise<void> => {
    await Promise.all(closers.map((c) => c()));
  };
  const handle = handlerOf(config);
  try {
    await add('http', http.createServer(handle), config.httpPort);
    if (config.h2cPort !== undefined) await add('h2c', http2.createServer(handle), config.h2cPort);
    if (config.tls !== undefined)
      await add('https', await secureServer(config.tls, handle), config.httpsPort);
  } catch (e) {
    await close();
    throw e;
  }
  return { listeners, close };
}
