/**
 * The assertions behind the conformance steps, pure so that their self-tests can prove each one
 * fails when it should. Each throws a ConformanceFailure naming what was expected and what came back.
 */

/** What the echo backend reported about the request it served (upstream echoserver's JSON). */
export interface EchoBody {
  readonly path?: string;
  readonly host?: string;
  readonly method?: string;
  readonly proto?: string;
  readonly headers?: Readonly<Record<string, readonly string[]>>;
  readonly namespace?: string;
  readonly service?: string;
  readonly pod?: string;
}

/** One response as the steps see it. */
export interface Observed {
  readonly status: number;
  readonly httpVersion: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
}

const fail = (message: string): never => {
  throw new ConformanceFailure(message);
};

/** The echo's JSON, or a failure saying the response did not come from an echo backend. */
export function echoBody(r: Observed): EchoBody {
  try {
    return JSON.parse(r.body) as EchoBody;
  } catch {
    return fail(
      `the response (status ${r.status}) is not an echo backend's answer: ${r.body.slice(0, 120)}`,
    );
  }
}

export function expectStatus(r: Observed, status: number): void {
  if (r.status !== status) fail(`expected status ${status}, got ${r.status}`);
}

export function expectServedBy(r: Observed, service: string): void {
  const seen = echoBody(r).service;
  if (seen !== service)
    fail(`expected the "${service}" service to serve the request, got "${seen}"`);
}

export function expectEcho(
  r: Observed,
  field: 'host' | 'method' | 'path' | 'proto',
  want: string,
): void {
  const seen = echoBody(r)[field];
  if (seen !== want) fail(`expected the request ${field} "${want}", the backend saw "${seen}"`);
}

export function expectResponseProto(r: Observed, want: string): void {
  const seen = `HTTP/${r.httpVersion}`;
  if (seen !== want) fail(`expected the response proto ${want}, got ${seen}`);
}

/** `value` "*" means present with any non-empty value. */
const matches = (seen: string | undefined, want: string): boolean =>
  seen !== undefined && seen !== '' && (want === '*' || seen === want);

export function expectResponseHeader(r: Observed, key: string, want: string): void {
  const raw = r.headers[key.toLowerCase()];
  const seen = Array.isArray(raw) ? raw.join(', ') : raw;
  if (!matches(seen, want))
    fail(
      `expected the response header ${key} matching "${want}", got ${seen === undefined ? 'none' : `"${seen}"`}`,
    );
}

export function expectRequestHeader(r: Observed, key: string, want: string): void {
  const headers = echoBody(r).headers ?? {};
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === key.toLowerCase());
  const seen = found?.[1].join(', ');
  if (!matches(seen, want))
    fail(
      `expected the backend to see request header ${key} matching "${want}", it saw ${seen === undefined ? 'none' : `"${seen}"`}`,
    );
}

/** Every response 200, and the serving pods' addresses (by pod name) count exactly `pods`. */
export function expectDistinctPods(
  replies: readonly Observed[],
  pods: number,
  addressOf: ReadonlyMap<string, string>,
): void {
  const bad = replies.filter((r) => r.status !== 200);
  if (bad.length > 0)
    fail(`${bad.length} of ${replies.length} responses were not 200 (first: ${bad[0]!.status})`);
  const addresses = new Set<string>();
  for (const r of replies) {
    const pod = echoBody(r).pod ?? '';
    const ip = addressOf.get(pod);
    if (!ip) fail(`the response came from pod "${pod}", which is not a pod of the backend`);
    addresses.add(ip!);
  }
  if (addresses.size !== pods)
    fail(
      `expected responses from ${pods} different pods, got ${addresses.size} (${[...addresses].join(', ')})`,
    );
}

/** The TLS certificate the client verified names `host`. */
export function expectCertificateFor(altNames: string | undefined, host: string): void {
  const names = (altNames ?? '').split(',').map((s) => s.trim());
  if (!names.includes(`DNS:${host}`))
    fail(`expected the server certificate to name ${host}, it names ${altNames ?? 'nothing'}`);
}

/**
 * How long the "no address in status" step watches the status: as long as the positive step
 * allows an address to appear, so an address that step would accept cannot slip past this one.
 * (Upstream waits its whole 5-minute status time-out for an address and fails if one appears.)
 */
export const STATUS_ADDRESS_GRACE_MS = 10_000;

/** Polls `read` (the status addresses) for `graceMs` and fails as soon as it names one. */
export async function expectNoAddressFor(
  read: () => Promise<readonly string[]>,
  graceMs = STATUS_ADDRESS_GRACE_MS,
  pauseMs = 250,
): Promise<void> {
  const end = Date.now() + graceMs;
  for (;;) {
    const addresses = await read();
    if (addresses.length > 0)
      fail(`the Ingress status names ${addresses.join(', ')} (watched for ${graceMs} ms)`);
    const left = end - Date.now();
    if (left <= 0) return;
    await new Promise((r) => setTimeout(r, Math.min(pauseMs, left)));
  }
}
