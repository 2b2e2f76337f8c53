// haproxy.cfg lines of basic auth (auth.ts): a userlist per backend of the Ingress, printed just
// before its backend, and the `http-request auth` line in the backend, so only that Ingress's
// routes ask for credentials (other Ingresses on the same host have backends of their own).
// User names, hashes and the realm are untrusted: each goes through haproxy_quote and the output
// escaper. A userlist cannot change at runtime: a Secret change is applied by a reload.
import type { Context } from 'liquidjs';
import { OutputLines, escapeOutput } from '../escaper.js';
import { haproxyQuote } from '../filters-haproxy.js';
import type { NginxAuth } from './auth.js';

/** The userlist of a backend's basic auth. */
export function userlistName(be: string): string {
  return `auth_${be}`;
}

/**
 * `http-request auth` unless the credentials match the backend's userlist; with `skip` (a
 * condition, for `satisfy: any`) only when it also holds.
 */
export function authLines(
  ctx: Context,
  be: string,
  auth: NginxAuth | undefined,
  skip?: string,
): string[] {
  if (auth === undefined || auth.denied !== undefined) return [];
  const q = { context: ctx };
  const check = `{ http_auth(${escapeOutput.call(q, userlistName(be))}) }`;
  const when = skip === undefined ? `unless ${check}` : `if !${check} ${skip}`;
  // ingress-nginx's default realm is empty; HAProxy's `auth` refuses an empty one (and without
  // one would name the backend), so that challenge is written out
  if (auth.realm === '')
    return [`http-request return status 401 hdr WWW-Authenticate 'Basic realm=""' ${when}`];
  const realm = escapeOutput.call(q, haproxyQuote.call(q, auth.realm));
  return [`http-request auth realm ${realm} ${when}`];
}

/** The userlist section (then a blank line), or nothing; with no user every request gets 401. */
export function userlistLines(ctx: Context, be: string, auth: NginxAuth | undefined): OutputLines {
  if (auth === undefined || auth.denied !== undefined) return new OutputLines([], '');
  const q = { context: ctx };
  const word = (v: string): string => escapeOutput.call(q, haproxyQuote.call(q, v));
  const lines = [`userlist ${escapeOutput.call(q, userlistName(be))}`];
  for (const u of auth.users) lines.push(`  user ${word(u.name)} password ${word(u.hash)}`);
  lines.push('');
  return new OutputLines(lines, '', '\n');
}
