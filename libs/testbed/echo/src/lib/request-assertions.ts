import type { EchoContext } from './echo-config.js';

/** TLS details of the connection a request came in on (upstream echo-basic's `tls` object). */
export interface TlsAssertions {
  readonly version: string;
  readonly peerCertificates?: readonly string[];
  readonly serverName: string;
  readonly negotiatedProtocol?: string;
  readonly cipherSuite: string;
}

/**
 * The JSON body every echo answer carries. Field names and order are those of the Gateway API
 * conformance echo backend, so suites that parse its answers parse ours unchanged.
 */
export interface RequestAssertions {
  readonly path: string;
  readonly host: string;
  readonly method: string;
  readonly proto: string;
  readonly headers: Readonly<Record<string, readonly string[]>>;
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  readonly pod: string;
  readonly tls?: TlsAssertions;
  readonly sni: string;
  /** The peer address of the connection (haptic's addition; behind a proxy, the proxy's address). */
  readonly remoteAddress: string;
}

/** What the HTTP layer saw of one request, independent of HTTP/1.1 or HTTP/2. */
export interface SeenRequest {
  readonly uri: string;
  readonly host: string;
  readonly method: string;
  readonly httpVersion: string;
  /** Header names and values in arrival order, as flat pairs (Node's `rawHeaders`). */
  readonly rawHeaders: readonly string[];
  readonly tls?: TlsAssertions;
  readonly remoteAddress?: string;
}

/** Go's canonical header spelling (`x-forwarded-for` → `X-Forwarded-For`), as the upstream echoes it. */
export function canonicalHeaderName(name: string): string {
  if (!/^[A-Za-z0-9!#$%&'*+\-.^_`|~]+$/.test(name)) return name;
  return name
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_m, sep: string, letter: string) => sep + letter.toUpperCase());
}

/** Groups raw header pairs by canonical name; `Host` and HTTP/2 pseudo-headers are left out, as in Go. */
export function groupHeaders(rawHeaders: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (name.startsWith(':') || name.toLowerCase() === 'host') continue;
    const key = canonicalHeaderName(name);
    (out[key] ??= []).push(rawHeaders[i + 1] ?? '');
  }
  return out;
}

/** Builds the echo answer for one request. */
export function buildRequestAssertions(req: SeenRequest, context: EchoContext): RequestAssertions {
  return {
    path: req.uri,
    host: req.host,
    method: req.method,
    proto: `HTTP/${req.httpVersion === '2' ? '2.0' : req.httpVersion}`,
    headers: groupHeaders(req.rawHeaders),
    namespace: context.namespace,
    ingress: context.ingress,
    service: context.service,
    pod: context.pod,
    ...(req.tls === undefined ? {} : { tls: req.tls }),
    sni: req.tls?.serverName ?? '',
    remoteAddress: req.remoteAddress ?? '',
  };
}

/** Headers an answer must carry when the request asks for them with `X-Echo-Set-Header: Name: value, ...`. */
export function echoSetHeaders(values: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const list of values) {
    for (const item of list.split(',')) {
      const trimmed = item.trim();
      const colon = trimmed.indexOf(':');
      const name = colon < 0 ? trimmed : trimmed.slice(0, colon);
      const value = colon < 0 ? '' : trimmed.slice(colon + 1).trim();
      if (name === '') continue;
      const prev = out.get(name);
      out.set(name, prev === undefined ? value : `${prev},${value}`);
    }
  }
  return out;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration (`250ms`, `1.5s`, `1m30s`) into milliseconds; undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(re)) {
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? Number.NaN);
    consumed += m[0].length;
  }
  return consumed === text.length && consumed > 0 && Number.isFinite(total) ? total : undefined;
}
