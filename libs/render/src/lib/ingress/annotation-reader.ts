// The haproxy-haptic.org/ annotations of an Ingress, read and checked in typed code (what the
// Ingress library's Liquid did per backend): the settings one backend's lines are built from.
// Messages and attributions are the Liquid version's.
import type { Context } from 'liquidjs';
import { base64Decode, validCertificate, validHostname } from '../filters-haproxy.js';
import { TemplateValueError, innermostObject } from '../provenance.js';
import { stateOf } from '../state.js';
import { registerInto } from '../tags.js';
import {
  field,
  isNil,
  items,
  liquidSplit as split,
  orDefault,
  path,
  str,
} from '../liquid-values.js';

const PREFIX = 'haproxy-haptic.org/';
const KNOWN =
  '|timeout-connect|timeout-server|timeout-queue|timeout-tunnel|ssl-redirect|ssl-redirect-code|redirect-to|redirect-code|allowlist-source-range|denylist-source-range|rate-limit-rps|auth-secret|auth-realm|request-headers|response-headers|affinity|session-cookie-name|backend-protocol|backend-tls|backend-tls-ca-secret|backend-tls-sni|balance|server-slots|backend-snippet|';
const BALANCES = '|roundrobin|leastconn|random|first|source|uri|';
const SECTIONS =
  '|global|defaults|frontend|backend|listen|userlist|peers|resolvers|program|cache|http-errors|ring|mailers|';
const DURATION = /^[0-9]{1,9}(us|ms|s|m|h|d)?$/;
const REDIRECT_CODE = /^30[12378]$/;
const URL =
  /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9._~!$&'()*+,;=:@/%-]*)?([?][A-Za-z0-9._~!$&'()*+,;=:@/?%-]*)?$/;
const IPV4 =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])([.](25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}(\/(3[0-2]|[12]?[0-9]))?$/;
const IPV6 = /^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}(\/(12[0-8]|1[01][0-9]|[1-9]?[0-9]))?$/;
const RATE = /^[1-9][0-9]{0,6}$/;
const SECRET_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const HTPASSWD = /^[A-Za-z0-9._-]{1,64}:[A-Za-z0-9./$=+-]{2,256}$/;
const REALM = /^[A-Za-z0-9 ._-]{1,64}$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
const COOKIE = /^[A-Za-z0-9_-]{1,64}$/;
const SLOTS = /^[1-9][0-9]{0,3}$/;

// Lines of multi-line annotations are not trimmed: the Liquid version's `assign a_l = a_l | strip`
// inside `for a_l in …` set an outer variable while the loop variable (what it read) stayed
// as it was. The output stays byte-identical, so that is kept (a blank-looking header line with
// spaces is refused; snippet lines keep their indentation).

/** Liquid's `regex_match`. */
function matches(v: unknown, re: RegExp): boolean {
  return re.test(str(v));
}

/** What one backend's lines need (the annotations' a_* variables of the Liquid version). */
export interface Settings {
  balance: unknown;
  /** Set by the server-slots annotation; else by the slot policy (`slotsFor`). */
  slots: number | undefined;
  timeouts: string[];
  sslRedirect: boolean;
  sslCode: unknown;
  redirectTo: unknown;
  redirectCode: unknown;
  allow: string;
  deny: string;
  rate: unknown;
  users: string[];
  realm: unknown;
  reqHeaders: [string, string][];
  respHeaders: [string, string][];
  cookie: unknown;
  proto: unknown;
  tls: boolean;
  tlsCa: string;
  tlsSni: unknown;
  snippet: string[];
}

/** Reads the annotations of `ing` (an `ing_` backend): throws the Liquid version's failures. */
export class AnnotationReader {
  private readonly an: unknown;
  private readonly id: string;

  constructor(
    private readonly ctx: Context,
    private readonly ing: object,
    private readonly extra: unknown,
    private readonly secrets: string,
  ) {
    this.an = path(ing, 'metadata', 'annotations');
    this.id = `Ingress ${str(path(ing, 'metadata', 'namespace'))}/${str(path(ing, 'metadata', 'name'))}: annotation ${PREFIX}`;
  }

  /** `{% fail %}` inside the backend: attributed to the object being rendered (the Ingress). */
  private fail(message: string): never {
    throw new TemplateValueError('fail', this.id + message, innermostObject(this.ctx));
  }

  private get(name: string): unknown {
    return field(this.an, PREFIX + name);
  }

  private secret(name: unknown): object | undefined {
    const keys = [str(path(this.ing, 'metadata', 'namespace')), str(name)];
    return stateOf(this.ctx).snapshot.lookup(this.secrets, keys)[0];
  }

  private flag(name: string): boolean {
    const v = this.get(name);
    if (v === 'true') return true;
    if (!isNil(v) && v !== 'false') this.fail(`${name}: must be true or false`);
    return false;
  }

  read(s: Settings): void {
    this.known();
    this.timeouts(s);
    s.sslRedirect = this.flag('ssl-redirect');
    s.sslCode = orDefault(this.get('ssl-redirect-code'), '308');
    if (!matches(s.sslCode, REDIRECT_CODE))
      this.fail('ssl-redirect-code: must be 301, 302, 303, 307 or 308');
    s.redirectTo = this.get('redirect-to');
    if (!isNil(s.redirectTo) && !matches(s.redirectTo, URL))
      this.fail('redirect-to: must be an absolute http(s) URL');
    s.redirectCode = orDefault(this.get('redirect-code'), '302');
    if (!matches(s.redirectCode, REDIRECT_CODE))
      this.fail('redirect-code: must be 301, 302, 303, 307 or 308');
    s.allow = this.sourceRange('allowlist');
    s.deny = this.sourceRange('denylist');
    s.rate = this.get('rate-limit-rps');
    if (!isNil(s.rate) && !matches(s.rate, RATE))
      this.fail('rate-limit-rps: must be a whole number of requests per second (1-9999999)');
    this.auth(s);
    s.reqHeaders = this.headers('request');
    s.respHeaders = this.headers('response');
    this.affinity(s);
    s.proto = orDefault(this.get('backend-protocol'), 'h1');
    if (s.proto !== 'h1' && s.proto !== 'h2' && s.proto !== 'grpc')
      this.fail('backend-protocol: must be h1, h2 or grpc');
    s.tls = this.flag('backend-tls');
    this.tlsCa(s);
    s.tlsSni = this.get('backend-tls-sni');
    if (!isNil(s.tlsSni)) s.tlsSni = validHostname.call({ context: this.ctx }, s.tlsSni);
    s.balance = orDefault(this.get('balance'), s.balance);
    if (!BALANCES.includes(`|${str(s.balance)}|`))
      this.fail('balance: must be roundrobin, leastconn, random, first, source or uri');
    this.slots(s);
    s.snippet = this.snippet();
  }

  private known(): void {
    for (const kv of items(this.an)) {
      const key = str((kv as unknown[])[0]);
      const points = Array.from(key);
      if (points.slice(0, 19).join('') !== PREFIX) continue;
      const short = points.slice(19, 219).join('');
      if (!KNOWN.includes(`|${short}|`)) this.fail(`${short} is not a known annotation`);
    }
  }

  private timeouts(s: Settings): void {
    for (const n of ['connect', 'server', 'queue', 'tunnel']) {
      const v = this.get(`timeout-${n}`);
      if (isNil(v)) continue;
      if (!matches(v, DURATION))
        this.fail(`timeout-${n}: ${str(v)} is not a duration (like 500ms, 30s, 5m)`);
      s.timeouts.push(`timeout ${n} ${str(v)}`);
    }
  }

  private sourceRange(n: string): string {
    const v = this.get(`${n}-source-range`);
    if (isNil(v)) return '';
    let cidrs = '';
    for (const part of split(v, ',')) {
      const c = part.trim();
      if (!IPV4.test(c) && !IPV6.test(c))
        this.fail(`${n}-source-range: ${c} is not an IP address or CIDR`);
      cidrs += ` ${c}`;
    }
    if (cidrs === '') this.fail(`${n}-source-range: lists no address`);
    return cidrs;
  }

  private auth(s: Settings): void {
    const name = this.get('auth-secret');
    if (!isNil(name)) {
      if (!matches(name, SECRET_NAME)) this.fail('auth-secret: is not a Secret name');
      const secret = this.secret(name);
      if (secret === undefined)
        this.fail(
          `auth-secret: Secret ${str(name)} not found (requests are not served without it)`,
        );
      const text = base64Decode.call({ context: this.ctx }, path(secret, 'data', 'auth'));
      for (const line of split(text, '\n')) {
        if (line === '') continue;
        if (!HTPASSWD.test(line))
          this.fail(`auth-secret: Secret ${str(name)} key auth must hold user:crypt-hash lines`);
        s.users.push(line);
      }
      if (s.users.length === 0)
        this.fail(`auth-secret: Secret ${str(name)} has no users in key auth`);
    }
    s.realm = orDefault(this.get('auth-realm'), 'Restricted');
    if (!matches(s.realm, REALM))
      this.fail('auth-realm: letters, digits, space . _ - (at most 64)');
  }

  private headers(n: string): [string, string][] {
    const out: [string, string][] = [];
    for (const line of split(this.get(`${n}-headers`), '\n')) {
      if (line === '') continue;
      const name = (split(line, ':')[0] ?? '').trim();
      if (!HEADER_NAME.test(name) || !line.includes(':'))
        this.fail(`${n}-headers: each line must be Name: value`);
      out.push([name, line.replace(name, '').replace(':', '').trim()]);
    }
    return out;
  }

  private affinity(s: Settings): void {
    const v = this.get('affinity');
    if (v === 'cookie') {
      s.cookie = orDefault(this.get('session-cookie-name'), 'HAPTIC_SERVER');
      if (!matches(s.cookie, COOKIE))
        this.fail('session-cookie-name: letters, digits, _ and - (at most 64)');
    } else if (!isNil(v) && v !== 'none') {
      this.fail('affinity: must be cookie or none');
    }
  }

  private tlsCa(s: Settings): void {
    const name = this.get('backend-tls-ca-secret');
    if (isNil(name)) return;
    const secret = this.secret(name);
    const ctx = { context: this.ctx };
    const ca = base64Decode.call(ctx, path(secret, 'data', 'ca.crt'));
    if (!ca.includes('-----BEGIN CERTIFICATE-----'))
      this.fail(`backend-tls-ca-secret: Secret ${str(name)} with a PEM ca.crt not found`);
    s.tlsCa = `ca_${str(path(secret, 'metadata', 'namespace'))}_${str(path(secret, 'metadata', 'name'))}.pem`;
    register(this.ctx, s.tlsCa, validCertificate.call(ctx, ca));
  }

  private slots(s: Settings): void {
    const v = this.get('server-slots');
    if (isNil(v)) return;
    const ok = matches(v, SLOTS);
    if (ok) s.slots = Number(v);
    if (!ok || (s.slots as number) > 1024)
      this.fail('server-slots: must be a whole number from 1 to 1024');
  }

  private snippet(): string[] {
    const v = this.get('backend-snippet');
    if (isNil(v)) return [];
    if (field(this.extra, 'allow_snippets') !== true)
      this.fail(
        'backend-snippet: snippets are disabled by the operator (templatingSettings.extraContext.allow_snippets)',
      );
    const out: string[] = [];
    for (const line of split(v, '\n')) {
      const word = split(line, ' ')[0] ?? '';
      if (SECTIONS.includes(`|${word}|`))
        this.fail(`backend-snippet: may not open a section (${word})`);
      if (line !== '') out.push(line);
    }
    return out;
  }
}

/** `{% register_certificate name: n, content: c %}` from typed code. */
function register(ctx: Context, name: string, content: string): void {
  const state = stateOf(ctx);
  const previous = state.certificates.get(name);
  if (previous !== undefined && previous !== content) {
    throw new TemplateValueError(
      'registration-conflict',
      `register_certificate: ${name} is already registered with different content`,
      innermostObject(ctx),
    );
  }
  registerInto(state, { registry: 'certificates', name, content });
}

/** The settings of a backend without annotations. */
export function defaultSettings(extra: unknown): Settings {
  return {
    balance: orDefault(field(extra, 'balance'), 'roundrobin'),
    slots: undefined,
    timeouts: [],
    sslRedirect: false,
    sslCode: undefined,
    redirectTo: undefined,
    redirectCode: undefined,
    allow: '',
    deny: '',
    rate: undefined,
    users: [],
    realm: undefined,
    reqHeaders: [],
    respHeaders: [],
    cookie: '',
    proto: 'h1',
    tls: false,
    tlsCa: '',
    tlsSni: undefined,
    snippet: [],
  };
}
