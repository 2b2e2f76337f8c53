// proxy-next-upstream, proxy-next-upstream-tries, proxy-next-upstream-timeout and
// proxy-request-buffering, with ingress-nginx's defaults (`error timeout`, 3 tries, no time
// limit, buffering on) and grammars, read into HAProxy's retry settings.
import type { CorsSource as AnnotationSource } from './reader-cors.js';

/** When and how often a request is passed on to another server of the backend. */
export interface Retry {
  /** HAProxy `retry-on` keywords; `none` for nginx's `off` (or no failure named). */
  readonly on: readonly string[];
  /** HAProxy `retries`: nginx's tries less the first attempt. */
  readonly retries: number;
  /** non_idempotent: POST, PATCH and LOCK are retried after being sent too. */
  readonly nonIdempotent: boolean;
}

/** The retry settings when no annotation changes them (ingress-nginx's `error timeout`, 3 tries). */
export const DEFAULT_RETRY: Retry = {
  on: ['conn-failure', 'empty-response', 'response-timeout'],
  retries: 2,
  nonIdempotent: false,
};

// nginx's failure kinds as HAProxy's retry-on conditions (the closest meanings): `error` is a
// failure connecting, sending or reading the header; `timeout` the same by a timeout;
// `invalid_header` an empty or invalid answer.
const CONDITIONS: Readonly<Record<string, readonly string[]>> = {
  error: ['conn-failure', 'empty-response'],
  timeout: ['conn-failure', 'response-timeout'],
  invalid_header: ['empty-response', 'junk-response'],
  http_500: ['500'],
  http_502: ['502'],
  http_503: ['503'],
  http_504: ['504'],
  http_403: ['403'],
  http_404: ['404'],
};
// The most tries accepted: nginx has no bound, HAProxy needs a number (tries 0, no limit, is refused).
const MAX_TRIES = 100;

function conditions(r: AnnotationSource): { on: string[]; nonIdempotent: boolean } | undefined {
  const name = 'proxy-next-upstream';
  const v = r.get(name)?.trim();
  // ingress-nginx falls back to its default for an empty value
  if (v === undefined || v === '') return undefined;
  const on = new Set<string>();
  let off = false;
  let nonIdempotent = false;
  for (const word of v.split(/\s+/)) {
    if (word === 'off') off = true;
    else if (word === 'non_idempotent') nonIdempotent = true;
    else if (word === 'http_429')
      r.fail(name, 'http_429 is refused: HAProxy 2.6 cannot retry on a 429 answer');
    else {
      const c = CONDITIONS[word];
      if (c === undefined)
        r.fail(
          name,
          `${JSON.stringify(word)} is not one of error, timeout, invalid_header, http_500, http_502, http_503, http_504, http_403, http_404, non_idempotent, off`,
        );
      c.forEach((x) => on.add(x));
    }
  }
  // nginx: `off` anywhere turns passing on off, whatever else is listed
  if (off || on.size === 0) return { on: ['none'], nonIdempotent };
  return { on: [...on], nonIdempotent };
}

/** The retry settings of one Ingress (throws NginxRefusal naming a bad annotation). */
export function readRetry(r: AnnotationSource): Retry {
  const c = conditions(r);
  const name = 'proxy-next-upstream-tries';
  if (r.get(name)?.trim() === '0')
    r.fail(name, '0 (no limit) is refused: HAProxy needs a number of retries; give the tries');
  const tries = r.int(name, 1, MAX_TRIES) ?? DEFAULT_RETRY.retries + 1;
  // checked only: HAProxy has no time limit over all the attempts of a request
  r.int('proxy-next-upstream-timeout', 0, 86400);
  const on = c?.on ?? DEFAULT_RETRY.on;
  return {
    on,
    retries: on[0] === 'none' ? 0 : tries - 1,
    nonIdempotent: c?.nonIdempotent ?? false,
  };
}

/** proxy-request-buffering: `on` (the default) or `off`, as ingress-nginx accepts them. */
export function readRequestBuffering(r: AnnotationSource): boolean {
  const name = 'proxy-request-buffering';
  const v = r.get(name)?.trim();
  if (v === undefined || v === 'on') return true;
  if (v === 'off') return false;
  return r.fail(name, `${JSON.stringify(v)} is not on or off`);
}

/**
 * The backend lines of the retries and request buffering: every retry goes to another server
 * (nginx passes a request to the next upstream server); POST, PATCH and LOCK are retried only
 * when they could not be sent, unless non_idempotent; the body is buffered before the server is
 * chosen, except for gRPC (nginx's grpc_pass never buffers it).
 */
export function retryLines(retry: Retry, buffering: boolean, grpc: boolean): string[] {
  const lines = [`retry-on ${retry.on.join(' ')}`, `retries ${retry.retries}`];
  if (retry.retries > 0) lines.push('option redispatch 1');
  const l7 = retry.on.some((c) => c !== 'conn-failure' && c !== 'none');
  if (l7 && retry.retries > 0 && !retry.nonIdempotent)
    lines.push('http-request disable-l7-retry if { method POST PATCH LOCK }');
  if (buffering && !grpc) lines.push('option http-buffer-request');
  return lines;
}
