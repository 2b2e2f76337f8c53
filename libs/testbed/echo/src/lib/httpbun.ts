import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { EchoContext } from './echo-config.js';

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

/** The longest `/delay/N` honoured, in seconds (httpbun caps it too, so a typo cannot hang a test). */
export const MAX_DELAY_SECONDS = 60;

function json(res: AnyResponse, code: number, body: unknown): void {
  res.statusCode = code;
  res.setHeader('Content-Type', 'application/json');
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

/** `Cookie: a=1; b=2` as an object. */
function cookiesOf(req: AnyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** A cookie name or value safe to send back in Set-Cookie (anything else is refused with 400). */
const COOKIE_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function setCookies(res: AnyResponse, pairs: readonly [string, string][]): void {
  if (pairs.some(([k, v]) => !COOKIE_TOKEN.test(k) || (v !== '' && !COOKIE_TOKEN.test(v)))) {
    json(res, 400, { error: 'cookie names and values must be tokens' });
    return;
  }
  res.setHeader(
    'Set-Cookie',
    pairs.map(([k, v]) => `${k}=${v}; Path=/`),
  );
  res.statusCode = 302;
  res.setHeader('Location', '/cookies');
  res.end();
}

function basicAuth(req: AnyRequest, res: AnyResponse, user: string, pass: string): void {
  const expected = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  if (req.headers.authorization === expected) {
    json(res, 200, { authenticated: true, user });
    return;
  }
  res.setHeader('WWW-Authenticate', 'Basic realm="Fake Realm"');
  json(res, 401, { authenticated: false });
}

function responseHeaders(res: AnyResponse, query: URLSearchParams): void {
  const set: Record<string, string[]> = {};
  for (const [k, v] of query) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(k) || /[\r\n]/.test(v)) {
      json(res, 400, { error: `invalid header ${JSON.stringify(k)}` });
      return;
    }
    (set[k] ??= []).push(v);
  }
  for (const [k, v] of Object.entries(set)) res.setHeader(k, v);
  json(res, 200, set);
}

/**
 * The routes of httpbun that ingress-nginx's e2e tests call: `/status/N`, `/response-headers?K=V`,
 * `/cookies`, `/cookies/set?k=v` and `/cookies/set/k/v`, `/basic-auth/user/pass`, `/delay/N`,
 * `/info` (the pod name as `hostname`). Returns false for any other path (the caller echoes it).
 */
export function answerHttpbun(req: AnyRequest, res: AnyResponse, context: EchoContext): boolean {
  const url = new URL(req.url ?? '/', 'http://httpbun.invalid');
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const [route, a, b] = parts;
  if (route === 'status' && parts.length === 2) {
    const code = Number(a);
    if (!/^\d{3}$/.test(a ?? '') || code < 100) json(res, 400, { error: 'status must be 100-999' });
    else {
      res.statusCode = code;
      res.end();
    }
    return true;
  }
  if (route === 'response-headers' && parts.length === 1) {
    responseHeaders(res, url.searchParams);
    return true;
  }
  if (route === 'cookies' && parts.length === 1) {
    json(res, 200, { cookies: cookiesOf(req) });
    return true;
  }
  if (route === 'cookies' && a === 'set') {
    if (parts.length === 4) setCookies(res, [[b ?? '', parts[3] ?? '']]);
    else if (parts.length === 2) setCookies(res, [...url.searchParams]);
    else return false;
    return true;
  }
  if (route === 'basic-auth' && parts.length === 3) {
    basicAuth(req, res, a ?? '', b ?? '');
    return true;
  }
  if (route === 'info' && parts.length === 1) {
    json(res, 200, { hostname: context.pod || hostname(), namespace: context.namespace });
    return true;
  }
  return false;
}

/** The seconds of a `/delay/N` path (capped), or undefined for any other path. */
export function httpbunDelay(url: string): number | undefined {
  const m = /^\/delay\/(\d+(?:\.\d+)?)(?:[/?]|$)/.exec(url);
  return m?.[1] === undefined ? undefined : Math.min(Number(m[1]), MAX_DELAY_SECONDS);
}
