import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';

/** One request of a case: to a HAProxy pod, with a Host header (and SNI over HTTPS). */
export interface Req {
  readonly host: string;
  readonly path?: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly https?: boolean;
  /** Over HTTPS, accept any certificate (ingress-nginx's e2e tests skip verification for other names). */
  readonly insecure?: boolean;
  /** Over HTTPS, the SNI sent when it is not the Host ("" sends none; the certificate is then not checked). */
  readonly sni?: string;
  /** Over HTTPS, a client certificate and its key (PEM) offered when the server asks for one. */
  readonly clientCert?: { readonly cert: string; readonly key: string };
}

/** What the echo backend (or httpbun's echo fallback) says it saw. */
export interface Seen {
  readonly path: string;
  readonly host: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly service: string;
  readonly pod: string;
  readonly remoteAddress?: string;
  readonly tls?: { readonly version: string };
}

/** The answer: status, headers (lower-case, repeats joined as node does), Set-Cookie lines, body, and the echo's report when it is one. */
export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly cookies: readonly string[];
  readonly body: string;
  readonly seen?: Seen;
  /** Over HTTPS, the common name of the certificate the server presented. */
  readonly serverCertificate?: string;
}

/** Where a HAProxy pod listens, and the CA its TLS hosts are signed by. */
export interface Target {
  readonly address: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly ca: string;
}

function parseSeen(body: string): Seen | undefined {
  try {
    const v = JSON.parse(body) as Partial<Seen>;
    return typeof v.path === 'string' && typeof v.service === 'string' ? (v as Seen) : undefined;
  } catch {
    return undefined;
  }
}

/** The TLS side of a request: SNI (the Host unless set; none is sent for ""), the client certificate. */
function tlsOptions(target: Target, r: Req) {
  const servername = r.sni ?? r.host;
  return {
    ca: target.ca,
    servername,
    // without SNI the certificate cannot be checked against a name
    rejectUnauthorized: !r.insecure && servername !== '',
    ...(r.clientCert ? { cert: r.clientCert.cert, key: r.clientCert.key } : {}),
  };
}

/** Sends one request without keep-alive (a fresh connection each: the client address is stable, no pooling). */
export function call(target: Target, r: Req, timeoutMs = 10_000): Promise<Answer> {
  const headers: Record<string, string> = { host: r.host, ...r.headers };
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
  const options = {
    host: target.address,
    port: r.https ? target.httpsPort : target.httpPort,
    path: r.path ?? '/',
    method: r.method ?? 'GET',
    headers,
    agent: false as const,
    ...(r.https ? tlsOptions(target, r) : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (r.https ? httpsRequest : httpRequest)(options, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => {
        const seen = parseSeen(body);
        const peer = r.https ? (res.socket as TLSSocket).getPeerCertificate() : undefined;
        const cn = peer?.subject?.CN;
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          cookies: res.headers['set-cookie'] ?? [],
          body,
          ...(seen ? { seen } : {}),
          ...(cn !== undefined ? { serverCertificate: Array.isArray(cn) ? cn.join(',') : cn } : {}),
        });
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(new Error(`request timed out after ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(r.body);
  });
}
