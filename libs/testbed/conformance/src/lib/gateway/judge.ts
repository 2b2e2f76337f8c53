import type { Reply } from '#testbed/stack';

/** One expected request/response pair, as the upstream suite states them. */
export interface HttpExpectation {
  readonly gateway?: string;
  readonly host?: string;
  readonly path: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly https?: boolean;
  /** The listener port the request goes to (default 80, or 443 with `https`), before the offset. */
  readonly port?: number;
  /** Default 200. */
  readonly status?: number;
  /** The backend (pod name prefix) expected to answer, for 2xx. */
  readonly backend?: string;
  /** Default gateway-conformance-infra. */
  readonly namespace?: string;
  /** Headers the backend must have seen (names case-insensitive; values joined with `,`); default the request's own `headers`, as upstream. */
  readonly seen?: Readonly<Record<string, string>>;
  /** Headers the backend must not have seen. */
  readonly absent?: readonly string[];
  /** The Host the backend must have seen when a filter rewrote it (default the request's `host`). */
  readonly seenHost?: string;
  /** Response headers the echo backend is asked to set (upstream's `X-Echo-Set-Header`). */
  readonly backendSets?: Readonly<Record<string, string>>;
  /** Response headers the client must get (names case-insensitive; repeated lines joined with `,`). */
  readonly responseHeaders?: Readonly<Record<string, string>>;
  /** Response headers the client must not get. */
  readonly responseAbsent?: readonly string[];
  /** For 3xx: the Location's parts (unspecified ones default to the request's). */
  readonly redirect?: {
    readonly scheme?: string;
    readonly host?: string;
    readonly port?: number;
    readonly path?: string;
  };
}

interface Echoed {
  readonly host?: string;
  readonly path?: string;
  readonly method?: string;
  readonly pod?: string;
  readonly namespace?: string;
  readonly headers?: Readonly<Record<string, readonly string[]>>;
}

function echoed(body: string): Echoed | undefined {
  try {
    return JSON.parse(body) as Echoed;
  } catch {
    return undefined;
  }
}

function seenHeaders(e: Echoed): Map<string, string> {
  const m = new Map<string, string>();
  for (const [k, v] of Object.entries(e.headers ?? {})) m.set(k.toLowerCase(), v.join(','));
  return m;
}

/** The request as the client sent it, for the redirect defaults. */
export interface Sent {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  readonly path: string;
}

function judgeRedirect(x: HttpExpectation, reply: Reply, sent: Sent): string | undefined {
  const loc = reply.headers['location'];
  if (typeof loc !== 'string') return 'no Location header';
  let url: URL;
  try {
    url = new URL(loc);
  } catch {
    return `Location ${loc} is not an absolute URL`;
  }
  const want = x.redirect ?? {};
  const scheme = want.scheme ?? sent.scheme;
  const defaultPort = scheme === 'https' ? 443 : 80;
  const port = want.port ?? (want.scheme ? defaultPort : sent.port);
  const got = {
    scheme: url.protocol.replace(':', ''),
    host: url.hostname,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    path: url.pathname,
  };
  const expected = { scheme, host: want.host ?? sent.host, port, path: want.path ?? sent.path };
  for (const k of ['scheme', 'host', 'port', 'path'] as const)
    if (got[k] !== expected[k]) return `Location ${loc}: ${k} ${got[k]}, expected ${expected[k]}`;
  return undefined;
}

/** Why one reply does not meet the expectation, or undefined when it does (upstream's rules). */
export function judgeReply(x: HttpExpectation, reply: Reply, sent: Sent): string | undefined {
  const status = x.status ?? 200;
  if (reply.status !== status) return `status ${reply.status}, expected ${status}`;
  if (status >= 300 && status < 400) return judgeRedirect(x, reply, sent);
  if (status !== 200 && status !== 204) return undefined;
  const e = echoed(reply.body);
  if (!e) return 'the answer is not an echo (JSON) body';
  return judgeResponseHeaders(x, reply) ?? judgeEchoed(x, e);
}

function responseHeaders(reply: Reply): Map<string, string> {
  const m = new Map<string, string>();
  const raw = reply.rawHeaders ?? [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = (raw[i] ?? '').toLowerCase();
    const prev = m.get(k);
    m.set(k, prev === undefined ? (raw[i + 1] ?? '') : `${prev},${raw[i + 1] ?? ''}`);
  }
  return m;
}

/** Upstream's response header checks: expected values (repeats joined with `,`), absent names. */
function judgeResponseHeaders(x: HttpExpectation, reply: Reply): string | undefined {
  if (!x.responseHeaders && !x.responseAbsent) return undefined;
  const got = responseHeaders(reply);
  for (const [k, v] of Object.entries(x.responseHeaders ?? {}))
    if (got.get(k.toLowerCase()) !== v)
      return `response header ${k}: ${got.get(k.toLowerCase()) ?? '(none)'}, expected ${v}`;
  for (const k of x.responseAbsent ?? [])
    if (got.has(k.toLowerCase())) return `response header ${k} present, expected it absent`;
  return undefined;
}

/**
 * Upstream's check of the request the backend saw (on 200/204): host (when the request named
 * one), path, method, namespace, headers (`seen`, else the request's own), absent headers, and
 * the serving pod's name prefix.
 */
function judgeEchoed(x: HttpExpectation, e: Echoed): string | undefined {
  const host = x.seenHost ?? x.host;
  if (host !== undefined && e.host !== host)
    return `backend saw host ${e.host ?? '?'}, expected ${host}`;
  if (e.path !== x.path) return `backend saw path ${e.path ?? '?'}, expected ${x.path}`;
  const method = x.method ?? 'GET';
  if (e.method !== method) return `backend saw method ${e.method ?? '?'}, expected ${method}`;
  const ns = x.namespace ?? 'gateway-conformance-infra';
  if (e.namespace !== ns) return `served from namespace ${e.namespace ?? '?'}, expected ${ns}`;
  const seen = seenHeaders(e);
  for (const [k, v] of Object.entries(x.seen ?? x.headers ?? {}))
    if (seen.get(k.toLowerCase()) !== v)
      return `backend saw ${k}: ${seen.get(k.toLowerCase()) ?? '(none)'}, expected ${v}`;
  for (const k of x.absent ?? [])
    if (seen.has(k.toLowerCase())) return `backend saw ${k}, expected it absent`;
  const backend = x.backend ?? '';
  if (!e.pod?.startsWith(backend)) return `served by pod ${e.pod ?? '?'}, expected ${backend}`;
  return undefined;
}

/**
 * Upstream's eventual consistency: `attempt` must succeed `required` times in a row before
 * `deadline` (ms); a failure resets the count. Resolves undefined on success, else the last reason.
 */
export async function consecutive(
  attempt: () => Promise<string | undefined>,
  opts: { required?: number; deadlineMs?: number; pauseMs?: number } = {},
): Promise<string | undefined> {
  const required = opts.required ?? 3;
  const end = Date.now() + (opts.deadlineMs ?? 30_000);
  let streak = 0;
  let last = 'no attempt';
  for (;;) {
    const why = await attempt().catch((e: unknown) => `request failed: ${String(e)}`);
    if (why === undefined) {
      streak += 1;
      if (streak >= required) return undefined;
    } else {
      streak = 0;
      last = why;
    }
    if (Date.now() > end)
      return `${last} (after ${required} consecutive successes were not seen in time)`;
    if (why !== undefined) await new Promise((r) => setTimeout(r, opts.pauseMs ?? 200));
  }
}

/**
 * A backend of weight 0 must never answer, so one answer from it fails the case outright: unlike
 * a share that is off by chance, it is no statistical variance a further sample could cure.
 */
export function zeroWeightAnswers(
  counts: Readonly<Record<string, number>>,
  weights: Readonly<Record<string, number>>,
): string | undefined {
  const hit = Object.entries(weights).filter(([n, w]) => w === 0 && (counts[n] ?? 0) > 0);
  if (hit.length === 0) return undefined;
  return `backends of weight 0 answered: ${hit.map(([n]) => `${n} (${counts[n] ?? 0}×)`).join(', ')}`;
}

/**
 * Upstream's weighted check: no backend of weight 0 answered, every other one answered, each
 * share within ±tolerance points of its weight share, and no backend outside the weights.
 */
export function judgeShares(
  counts: Readonly<Record<string, number>>,
  weights: Readonly<Record<string, number>>,
  tolerancePoints = 5,
): string | undefined {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const sum = Object.values(weights).reduce((a, b) => a + b, 0);
  if (total === 0) return 'no answers';
  const zero = zeroWeightAnswers(counts, weights);
  if (zero) return zero;
  const unknown = Object.keys(counts).filter((n) => !(n in weights) && (counts[n] ?? 0) > 0);
  if (unknown.length > 0) return `answered by unexpected backends ${unknown.join(', ')}`;
  for (const [name, w] of Object.entries(weights)) {
    if (w > 0 && (counts[name] ?? 0) === 0) return `${name} (weight ${w}) received no traffic`;
    const share = ((counts[name] ?? 0) * 100) / total;
    const want = (w * 100) / sum;
    if (Math.abs(share - want) > tolerancePoints)
      return `${name}: ${share.toFixed(1)} % of ${total}, expected ${want.toFixed(1)} % ±${tolerancePoints}`;
  }
  return undefined;
}

/**
 * Go's x509 host name rule, which the upstream suite's TLS client applies: a `*` matches exactly
 * one whole leftmost label (so `*.org` covers `unknown-example.org`, which Node's check refuses),
 * labels compare case-insensitively, a trailing dot is ignored.
 */
export function goHostnameMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '').split('.');
  const h = host.toLowerCase().replace(/\.$/, '').split('.');
  if (p.length !== h.length || h.some((l) => l === '')) return false;
  return p.every((label, i) => label === h[i] || (i === 0 && label === '*' && p.length > 1));
}

/** The server-name check for a TLS client with Go's rule over the certificate's DNS names. */
export function goServerIdentity(
  host: string,
  cert: { readonly subjectaltname?: string },
): Error | undefined {
  const names = (cert.subjectaltname ?? '')
    .split(', ')
    .filter((n) => n.startsWith('DNS:'))
    .map((n) => n.slice(4));
  return names.some((n) => goHostnameMatches(n, host))
    ? undefined
    : new Error(`certificate names ${names.join(', ')} do not cover ${host}`);
}
