import { describe, expect, it } from 'vitest';
import { cookieLines } from './backend-lines.js';
import type { AffinityCookie } from './reader.js';

const hv = (v: string): string => JSON.stringify(v);
const base: AffinityCookie = {
  name: 'my.cookie',
  path: undefined,
  maxAge: undefined,
  expires: undefined,
  sameSite: undefined,
  conditionalSameSiteNone: false,
  secure: false,
  domain: undefined,
};

describe('cookieLines', () => {
  it('takes the matched plain path, longest first, else /', () => {
    const lines = cookieLines(base, ['/something', '/a(b)'], hv);
    expect(lines[0]).toBe(
      'http-request set-var-fmt(txn.nginx_ckpath) "/something" if !{ var(txn.nginx_ckpath) -m found } { var(txn.path) -m beg /something }',
    );
    // a path HAProxy would read specially is not written as a pattern: it falls back to /
    expect(lines[1]).toBe(
      'http-request set-var-fmt(txn.nginx_ckpath) "/" if !{ var(txn.nginx_ckpath) -m found }',
    );
    expect(lines.join('\n')).not.toContain('a(b)');
  });

  it('writes session-cookie-path as the only Path, and Expires only when set', () => {
    const lines = cookieLines({ ...base, path: '/foo/bar', maxAge: 60 }, ['/x'], hv);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('"/foo/bar" if !{ var(txn.nginx_ckpath) -m found }');
    expect(lines[1]).toBe('cookie my.cookie insert indirect httponly attr "Max-Age=60"');
    expect(lines[2]).toBe(
      "http-after-response replace-header Set-Cookie '^(my\\.cookie=[^;]*); path=/(.*)$' '\\1; Path=%[var(txn.nginx_ckpath)]\\2'",
    );
  });

  it('adds an Expires date computed per answer as nginx writes it', () => {
    const lines = cookieLines({ ...base, expires: 172800 }, ['/'], hv);
    expect(lines.at(-1)).toContain(
      '; Path=%[var(txn.nginx_ckpath)]; Expires=%[date(172800),utime("%a, %d-%b-%Y %H:%M:%S GMT")]\\2',
    );
    expect(lines.join('\n')).not.toContain('Max-Age');
  });
});

describe('cookieLines: session-cookie-conditional-samesite-none', () => {
  it("drops SameSite=None for ingress-nginx's incompatible User-Agents, only when asked", () => {
    const none = { ...base, sameSite: 'None' };
    const lines = cookieLines({ ...none, conditionalSameSiteNone: true }, ['/'], hv);
    expect(lines.slice(-3)).toEqual([
      'http-request set-var(txn.nginx_ssn_old) bool(true) if { req.fhdr(user-agent) -m sub Chrome/4 Chrome/5 Chrome/6 "CPU iPhone OS 12" "iPad; CPU OS 12" }',
      'http-request set-var(txn.nginx_ssn_old) bool(true) if { req.fhdr(user-agent) -m sub Macintosh } { req.fhdr(user-agent) -m sub "Intel Mac OS X 10_14" } { req.fhdr(user-agent) -m sub Safari } !{ req.fhdr(user-agent) -m sub Chrome }',
      "http-after-response replace-header Set-Cookie '^(my\\.cookie=.*); SameSite=None(.*)$' '\\1\\2' if { var(txn.nginx_ssn_old) -m bool }",
    ]);
    expect(cookieLines(none, ['/'], hv).join('\n')).not.toContain('nginx_ssn_old');
    const lax = { ...base, sameSite: 'Lax', conditionalSameSiteNone: true };
    expect(cookieLines(lax, ['/'], hv).join('\n')).not.toContain('nginx_ssn_old');
  });
});
