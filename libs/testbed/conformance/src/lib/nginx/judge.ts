import type { Answer } from './http.js';

/** A header's value: exactly this, matching this, or (null) absent. */
export type HeaderWant = string | RegExp | null;

/** What one answer must show; every field set is checked. */
export interface Expect {
  readonly status?: number;
  /** Over HTTPS, the common name of the certificate the client was presented (HAProxy's or, passed through, the backend's). */
  readonly serverCertificate?: string;
  /** The Service whose echo pod answered. */
  readonly service?: string;
  /** The path (with query) the backend saw. */
  readonly path?: string;
  /** The Host the backend saw. */
  readonly backendHost?: string;
  /** Whether the backend was reached over TLS. */
  readonly backendTls?: boolean;
  /** Headers the backend saw (canonical names). */
  readonly backendHeaders?: Readonly<Record<string, HeaderWant>>;
  /** Response headers (any case). */
  readonly headers?: Readonly<Record<string, HeaderWant>>;
  /** A Set-Cookie line for this cookie name, containing each of `contains` and none of `lacks` (any case; null: no cookie at all). */
  readonly cookie?: {
    readonly name: string;
    readonly contains?: readonly string[];
    readonly lacks?: readonly string[];
  } | null;
}

const show = (v: unknown) => JSON.stringify(v);

function headerWrong(what: string, got: string | undefined, want: HeaderWant): string | undefined {
  if (want === null)
    return got === undefined ? undefined : `${what}: expected absent, got ${show(got)}`;
  if (got === undefined) return `${what}: expected ${String(want)}, absent`;
  const ok = typeof want === 'string' ? got === want : want.test(got);
  return ok ? undefined : `${what}: expected ${String(want)}, got ${show(got)}`;
}

function responseHeader(a: Answer, name: string): string | undefined {
  const v = a.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** The Set-Cookie line that sets `name`, if any. */
export function cookieLine(a: Answer, name: string): string | undefined {
  return a.cookies.find((c) => c.startsWith(`${name}=`));
}

/** The value a Set-Cookie line sets (`a=b; Path=/` → `b`). */
export function cookieValue(line: string): string {
  return line.slice(line.indexOf('=') + 1).split(';')[0] ?? '';
}

function cookieWrong(a: Answer, want: NonNullable<Expect['cookie']> | null): string | undefined {
  if (want === null) {
    return a.cookies.length === 0 ? undefined : `expected no Set-Cookie, got ${show(a.cookies)}`;
  }
  const line = cookieLine(a, want.name);
  if (line === undefined) return `expected a Set-Cookie for ${want.name}, got ${show(a.cookies)}`;
  const has = (p: string) => line.toLowerCase().includes(p.toLowerCase());
  const missing = (want.contains ?? []).filter((p) => !has(p));
  if (missing.length > 0) return `Set-Cookie ${show(line)} lacks ${show(missing)}`;
  const extra = (want.lacks ?? []).filter(has);
  return extra.length === 0 ? undefined : `Set-Cookie ${show(line)} has ${show(extra)}`;
}

function backendWrong(a: Answer, x: Expect): string | undefined {
  const needsBackend =
    x.service !== undefined ||
    x.path !== undefined ||
    x.backendHost !== undefined ||
    x.backendTls !== undefined ||
    x.backendHeaders !== undefined;
  if (!needsBackend) return undefined;
  const seen = a.seen;
  if (!seen) return `expected an echo answer, got ${a.status} ${show(a.body.slice(0, 200))}`;
  if (x.service !== undefined && seen.service !== x.service)
    return `served by ${show(seen.service)}, expected ${show(x.service)}`;
  if (x.path !== undefined && seen.path !== x.path)
    return `the backend saw path ${show(seen.path)}, expected ${show(x.path)}`;
  if (x.backendHost !== undefined && seen.host !== x.backendHost)
    return `the backend saw Host ${show(seen.host)}, expected ${show(x.backendHost)}`;
  if (x.backendTls !== undefined && (seen.tls !== undefined) !== x.backendTls)
    return x.backendTls
      ? 'the backend was reached without TLS'
      : 'the backend was reached over TLS';
  for (const [name, want] of Object.entries(x.backendHeaders ?? {})) {
    const why = headerWrong(`the backend's ${name}`, seen.headers[name]?.join(', '), want);
    if (why) return why;
  }
  return undefined;
}

/** The first way `a` differs from `x`, or undefined when it matches. */
export function judge(a: Answer, x: Expect): string | undefined {
  if (x.status !== undefined && a.status !== x.status)
    return `status ${a.status}, expected ${x.status}${a.headers.location ? ` (Location ${a.headers.location})` : ''}`;
  if (x.serverCertificate !== undefined && a.serverCertificate !== x.serverCertificate)
    return `the server presented a certificate for ${show(a.serverCertificate)}, expected ${show(x.serverCertificate)}`;
  for (const [name, want] of Object.entries(x.headers ?? {})) {
    const why = headerWrong(name, responseHeader(a, name), want);
    if (why) return why;
  }
  if (x.cookie !== undefined) {
    const why = cookieWrong(a, x.cookie);
    if (why) return why;
  }
  return backendWrong(a, x);
}

/** How many answers each backend pod gave (`?` for an answer that is not the echo's). */
export function podCounts(answers: readonly Answer[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of answers) {
    const pod = a.seen?.pod ?? '?';
    out.set(pod, (out.get(pod) ?? 0) + 1);
  }
  return out;
}

/** How many answers had each status. */
export function statusCounts(answers: readonly Answer[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const a of answers) out.set(a.status, (out.get(a.status) ?? 0) + 1);
  return out;
}

/** `{pod: n, ...}` for a reason line. */
export const showCounts = (m: ReadonlyMap<string | number, number>) => show(Object.fromEntries(m));
