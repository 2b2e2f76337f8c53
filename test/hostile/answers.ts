import { request } from 'node:http';
import { canonicalHeaderName } from '#testbed/echo';
import { ROUTE_TAG } from './library.js';
import type { Obj } from './objects.js';

// What a served hostile Ingress must answer to a real request, from its own fields: the status
// its annotations call for, and every header value an annotation sets arriving byte for byte as
// written (the echo backend's JSON answer reports the request headers it saw; response headers
// are read on the answer itself). A `%[env(HOME)]` HAProxy evaluated, or a `${HOME}` it
// expanded, arrives as something else.

const PFX = 'haproxy-haptic.org/';
/** HAProxy's default buffer size (`tune.bufsize`), which the library leaves as it is. */
const BUFSIZE = 16_384;

/** The request to send to an Ingress and what must come back. */
export interface ExpectedAnswer {
  readonly host: string;
  readonly path: string;
  readonly status: number;
  /** Request headers the echo backend must have seen, by canonical name. */
  readonly echoed: Readonly<Record<string, string>>;
  /** Headers the answer itself must carry (lower-case names). */
  readonly answered: Readonly<Record<string, string>>;
}

/** An answer as received. Header values are Node's reading (each byte one latin1 character). */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** A header value as Node reports it when the bytes on the wire are `value`'s UTF-8. */
const onTheWire = (value: string) => Buffer.from(value, 'utf8').toString('latin1');

/** `Name: value` lines of a headers annotation, as [name, value]. */
function headerLines(text: string | undefined): [string, string][] {
  if (text === undefined) return [];
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const at = l.indexOf(':');
      return [l.slice(0, at).trim(), l.slice(at + 1).trim()];
    });
}

interface IngressFields {
  metadata: { annotations?: Record<string, string> };
  spec: { rules: { host: string; http: { paths: { path: string }[] } }[] };
}

/** What a request to the Ingress's first host and path must get, by the Ingress's own fields. */
export function expectedAnswer(ing: Obj): ExpectedAnswer {
  const fields = ing as unknown as IngressFields;
  const a = fields.metadata.annotations ?? {};
  const rule = fields.spec.rules[0]!;
  const echoed: Record<string, string> = {};
  const answered: Record<string, string> = {};
  for (const [n, v] of headerLines(a[`${PFX}request-headers`]))
    echoed[canonicalHeaderName(n)] = onTheWire(v);
  if (a[ROUTE_TAG] !== undefined) echoed['X-Route-Tag'] = onTheWire(a[ROUTE_TAG]);
  let status = 200;
  const redirect = a[`${PFX}redirect-to`];
  // (the order of the library's rules: deny, then auth, then redirect)
  if (a[`${PFX}allowlist-source-range`] !== undefined) {
    status = 403; // the corpus allows 10.0.0.0/8 only
  } else if (a[`${PFX}auth-secret`] !== undefined) {
    status = 401;
    const realm = a[`${PFX}auth-realm`] ?? 'Restricted';
    answered['www-authenticate'] = `Basic realm="${onTheWire(realm)}"`;
  } else if (redirect !== undefined) {
    status = Number(a[`${PFX}redirect-code`] ?? 302);
    answered['location'] = onTheWire(redirect);
  }
  // a header HAProxy's buffer cannot hold (tune.bufsize, 16 KiB by default) fails its
  // set-header rule: HAProxy answers 500 itself and nothing reaches the echo
  if (Object.values(echoed).some((v) => v.length > BUFSIZE)) {
    status = 500;
    for (const n of Object.keys(echoed)) delete echoed[n];
  }
  // http-response rules act on the backend's answers only, not on HAProxy's own (401, 403, 3xx)
  if (status === 200)
    for (const [n, v] of headerLines(a[`${PFX}response-headers`]))
      answered[n.toLowerCase()] = onTheWire(v);
  return { host: rule.host, path: rule.http.paths[0]!.path, status, echoed, answered };
}

/** One HTTP/1.1 request to `address:port` with a Host header, its answer in full. */
export function requestTo(address: string, port: number, host: string, path: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request({ host: address, port, path, headers: { host }, agent: false }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (c: string) => (body += c))
        .on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req
      .on('error', reject)
      .setTimeout(5000, () => req.destroy(new Error('timeout')))
      .end();
  });
}

/** Every way `got` is not the answer `want` calls for (empty: it is). */
export function answerProblems(want: ExpectedAnswer, got: Answer): string[] {
  const out: string[] = [];
  const show = (s: unknown) => JSON.stringify(s)?.slice(0, 200);
  if (got.status !== want.status) out.push(`status ${got.status}, not ${want.status}`);
  for (const [name, value] of Object.entries(want.answered)) {
    if (got.headers[name] !== value)
      out.push(`answer header ${name}: ${show(got.headers[name])}, not ${show(value)}`);
  }
  if (want.status !== 200) return out;
  let echo: { host?: string; path?: string; headers?: Record<string, string[]> };
  try {
    echo = JSON.parse(got.body) as typeof echo;
  } catch {
    return [...out, `not the echo's answer: ${show(got.body)}`];
  }
  if (echo.host !== want.host) out.push(`the echo saw host ${show(echo.host)}`);
  if (echo.path !== want.path) out.push(`the echo saw path ${show(echo.path)}`);
  for (const [name, value] of Object.entries(want.echoed)) {
    const seen = echo.headers?.[name];
    if (seen?.length !== 1 || seen[0] !== value)
      out.push(`the echo saw ${name}: ${show(seen)}, not ${show(value)}`);
  }
  return out;
}
