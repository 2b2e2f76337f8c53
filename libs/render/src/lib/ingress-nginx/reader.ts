// The nginx.ingress.kubernetes.io/ annotations of one Ingress, read with ingress-nginx's
// semantics (its annotation guide and e2e tests) into what a HAProxy backend needs. Values are
// untrusted: each is checked against a strict grammar and a bad one refuses the Ingress with a
// reason naming it and the annotation (ingress-nginx would log it and fall back to a default).
import { field, isNil, items, path, str } from '../liquid-values.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { readCors, type Cors } from './reader-cors.js';
import { readExternalAuth, type ExternalAuth } from './external-auth.js';
import { globalCustomErrors, readCustomErrors } from './custom-errors.js';
import { hashKeyFormat } from './reader-hash.js';
import { DEFAULT_RETRY, readRequestBuffering, readRetry, type Retry } from './reader-retry.js';

/** A refusal of one annotation value; the message names the Ingress and the annotation. */
export class NginxRefusal extends Error {}

/** `namespace/name` of an Ingress, as refusals and notices name it. */
export function ingressIdOf(ing: object): string {
  return `${str(path(ing, 'metadata', 'namespace'))}/${str(path(ing, 'metadata', 'name'))}`;
}

/** The affinity cookie (ingress-nginx `affinity: cookie`). */
export interface AffinityCookie {
  readonly name: string;
  readonly path: string | undefined;
  readonly maxAge: number | undefined;
  /** Seconds from each answer to the cookie's Expires date. */
  readonly expires: number | undefined;
  readonly sameSite: string | undefined;
  /** Leave out `SameSite=None` for the clients ingress-nginx knows reject it. */
  readonly conditionalSameSiteNone: boolean;
  readonly secure: boolean;
  readonly domain: string | undefined;
}

/** What the backend of one Ingress is built from. */
export interface NginxSettings {
  balance: string;
  /** upstream-hash-by: the log-format of the consistent-hash key. */
  hashKey: string | undefined;
  timeouts: string[];
  /** Redirect plain HTTP to HTTPS: for these hosts (ssl-redirect), or every request (force). */
  sslRedirect: { readonly force: boolean; readonly hosts: readonly string[] } | undefined;
  preserveTrailingSlash: boolean;
  redirect: { readonly url: string; readonly code: number } | undefined;
  appRoot: string | undefined;
  /** rewrite-target as a HAProxy replace format (`$1` as `\1`). */
  rewrite: string | undefined;
  xForwardedPrefix: string | undefined;
  upstreamVhost: string | undefined;
  /** Largest request body in bytes (0: unlimited). */
  bodySize: number;
  cors: Cors | undefined;
  allow: string[];
  deny: string[];
  rps: number | undefined;
  /** limit-rpm: requests per minute per client address. */
  rpm: number | undefined;
  burst: number;
  connections: number | undefined;
  limitAllow: string[];
  /** satisfy: any — the source ranges or basic auth suffice (all: both are needed). */
  satisfyAny: boolean;
  cookie: AffinityCookie | undefined;
  /** auth-url and its companions (external-auth.ts), or undefined. */
  extAuth: ExternalAuth | undefined;
  /** custom-http-errors: the statuses replaced by the default backend's answer. */
  customErrors: number[];
  /** service-upstream: one server at the Service's cluster IP instead of its endpoints. */
  serviceUpstream: boolean;
  /** Server options of the backend protocol. */
  proto: 'HTTP' | 'HTTPS' | 'GRPC' | 'GRPCS';
  /** proxy-next-upstream and its tries: HAProxy's retries. */
  retry: Retry;
  /** proxy-request-buffering: wait for the request body before choosing a server. */
  requestBuffering: boolean;
}

const IPV4 =
  /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])([.](25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}(\/(3[0-2]|[12]?[0-9]))?$/;
const IPV6 = /^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){2,7}(\/(12[0-8]|1[01][0-9]|[1-9]?[0-9]))?$/;
const SIZE = /^([0-9]{1,10})([kKmMgG]?)$/;
const URL =
  /^https?:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9._~!$&'()*+,;=:@/-]*)?([?][A-Za-z0-9._~!$&'()*+,;=:@/?-]*)?$/;
const APP_ROOT = /^\/[A-Za-z0-9._~!&()*+,;=:@/-]*$/;
const TARGET = /^[A-Za-z0-9._~!&()*+,;=:@/-]*(\$[0-9][A-Za-z0-9._~!&()*+,;=:@/-]*)*$/;
const HOST_PORT = /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?(:[0-9]{1,5})?$/;
const PREFIX_VALUE = /^\/?[A-Za-z0-9._~!$&'()*+,;=:@/-]{0,1024}$/;
const COOKIE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const COOKIE_PATH = /^\/[A-Za-z0-9._~!$&'()*+,=:@/-]{0,1023}$/;
const DOMAIN = /^[.]?[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/;
const SECONDS = /^[0-9]{1,9}$/;
const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** The settings of a backend no annotation changed (the library's settings applied). */
export function defaultNginxSettings(extra: unknown): NginxSettings {
  const size = field(extra, 'proxy_body_size');
  return {
    balance: 'roundrobin',
    hashKey: undefined,
    timeouts: [],
    sslRedirect: undefined,
    preserveTrailingSlash: false,
    redirect: undefined,
    appRoot: undefined,
    rewrite: undefined,
    xForwardedPrefix: undefined,
    upstreamVhost: undefined,
    bodySize: bytesOf(isNil(size) ? '1m' : str(size), () => {
      throw new NginxRefusal(
        `templatingSettings.extraContext.proxy_body_size: ${JSON.stringify(size)} is not an nginx size (like 1m, 512k, 0)`,
      );
    }),
    cors: undefined,
    allow: [],
    deny: [],
    rps: undefined,
    rpm: undefined,
    burst: 5,
    connections: undefined,
    limitAllow: [],
    satisfyAny: false,
    cookie: undefined,
    extAuth: undefined,
    customErrors: globalCustomErrors(extra),
    serviceUpstream: false,
    proto: 'HTTP',
    retry: DEFAULT_RETRY,
    requestBuffering: true,
  };
}

function bytesOf(v: string, bad: () => never): number {
  const m = SIZE.exec(v.trim());
  if (!m) return bad();
  return Number(m[1]) * (UNITS[(m[2] ?? '').toLowerCase()] ?? 1);
}

/** Reads the annotations of one Ingress (throws NginxRefusal at the first bad value). */
export class NginxReader {
  private readonly an: unknown;
  private readonly id: string;
  /** The Ingress's namespace. */
  readonly namespace: string;

  constructor(
    private readonly ing: object,
    private readonly extra: unknown,
  ) {
    this.an = path(ing, 'metadata', 'annotations');
    const ns = str(path(ing, 'metadata', 'namespace'));
    this.namespace = ns;
    this.id = `Ingress ${ns}/${str(path(ing, 'metadata', 'name'))}`;
  }

  /** A refusal naming the Ingress and the annotation. */
  fail(name: string, why: string): never {
    throw new NginxRefusal(`${this.id}: annotation ${NGINX_PREFIX}${name}: ${why}`);
  }

  get(name: string): string | undefined {
    const v = field(this.an, NGINX_PREFIX + name);
    return isNil(v) ? undefined : str(v);
  }

  /** ingress-nginx's booleans ("true"/"false", as Go's strconv.ParseBool reads them). */
  flag(name: string, fallback: boolean): boolean {
    const v = this.get(name)?.trim();
    if (v === undefined) return fallback;
    if (/^(1|t|T|TRUE|true|True)$/.test(v)) return true;
    if (/^(0|f|F|FALSE|false|False)$/.test(v)) return false;
    return this.fail(name, `${JSON.stringify(v)} is not true or false`);
  }

  int(name: string, min: number, max: number): number | undefined {
    const v = this.get(name)?.trim();
    if (v === undefined) return undefined;
    if (!/^[0-9]{1,9}$/.test(v) || Number(v) < min || Number(v) > max)
      this.fail(name, `${JSON.stringify(v)} is not a whole number from ${min} to ${max}`);
    return Number(v);
  }

  /** Every setting, from the defaults of `s`. */
  read(s: NginxSettings): void {
    this.redirects(s);
    this.rewrites(s);
    this.backend(s);
    s.cors = readCors(this);
    s.extAuth = readExternalAuth(this);
    s.customErrors = readCustomErrors(this) ?? s.customErrors;
    s.allow = this.ranges('allowlist-source-range') ?? this.ranges('whitelist-source-range') ?? [];
    s.deny = this.ranges('denylist-source-range') ?? [];
    s.satisfyAny = this.satisfy();
    s.retry = readRetry(this);
    s.requestBuffering = readRequestBuffering(this);
    this.limits(s);
    this.affinity(s);
  }

  private redirects(s: NginxSettings): void {
    const force = this.flag('force-ssl-redirect', false);
    const tlsHosts = this.tlsHosts();
    const onTls = this.flag('ssl-redirect', field(this.extra, 'ssl_redirect') !== false);
    if (force || (onTls && tlsHosts.length > 0))
      s.sslRedirect = { force, hosts: force ? [] : tlsHosts };
    s.preserveTrailingSlash = this.flag('preserve-trailing-slash', false);
    // ingress-nginx: temporal-redirect first, then permanent-redirect; codes out of range fall
    // back to the default
    const temporal = this.get('temporal-redirect');
    const permanent = this.get('permanent-redirect');
    if (temporal !== undefined && temporal !== '') {
      s.redirect = { url: this.url('temporal-redirect', temporal), code: 302 };
    } else if (permanent !== undefined && permanent !== '') {
      const code = this.int('permanent-redirect-code', 0, 999) ?? 301;
      s.redirect = {
        url: this.url('permanent-redirect', permanent),
        code: code >= 300 && code <= 308 ? code : 301,
      };
    }
    const root = this.get('app-root');
    if (root !== undefined && root !== '') {
      if (!APP_ROOT.test(root) || root.length > 1024)
        this.fail('app-root', `${JSON.stringify(root)} is not a URL path starting with /`);
      s.appRoot = root;
    }
  }

  private url(name: string, v: string): string {
    if (!URL.test(v) || v.length > 2048)
      this.fail(name, `${JSON.stringify(v)} is not an absolute http(s) URL`);
    return v;
  }

  /** The hosts of spec.tls (lower-cased); an entry without hosts covers the rules' hosts. */
  private tlsHosts(): string[] {
    const out: string[] = [];
    for (const tls of items(path(this.ing, 'spec', 'tls'))) {
      const hosts = items(field(tls, 'hosts'));
      if (hosts.length === 0)
        for (const rule of items(path(this.ing, 'spec', 'rules')))
          out.push(str(field(rule, 'host')));
      for (const h of hosts) out.push(str(h));
    }
    return [
      ...new Set(
        out.map((h) => h.toLowerCase()).filter((h) => HOST_PORT.test(h.replace(/^\*[.]/, ''))),
      ),
    ];
  }

  private rewrites(s: NginxSettings): void {
    const target = this.get('rewrite-target');
    if (target !== undefined && target !== '') {
      if (!TARGET.test(target) || target.length > 1024)
        this.fail(
          'rewrite-target',
          `${JSON.stringify(target)} is not a URL path with $1-style groups (no query, no nginx variables)`,
        );
      s.rewrite = target.replace(/\$([0-9])/g, '\\$1');
    }
    const prefix = this.get('x-forwarded-prefix');
    if (prefix !== undefined && prefix !== '') {
      if (!PREFIX_VALUE.test(prefix))
        this.fail('x-forwarded-prefix', `${JSON.stringify(prefix)} is not a URL path`);
      s.xForwardedPrefix = prefix;
    }
    const vhost = this.get('upstream-vhost');
    if (vhost !== undefined && vhost !== '') {
      if (!HOST_PORT.test(vhost))
        this.fail(
          'upstream-vhost',
          `${JSON.stringify(vhost)} is not a host name (with an optional port)`,
        );
      s.upstreamVhost = vhost;
    }
  }

  private backend(s: NginxSettings): void {
    const proto = this.get('backend-protocol')?.trim().toUpperCase();
    if (proto === 'FCGI')
      this.fail(
        'backend-protocol',
        'FCGI is refused: HAProxy speaks FastCGI only with a fcgi-app section per application, which an annotation cannot describe safely',
      );
    if (proto === 'HTTPS' || proto === 'GRPC' || proto === 'GRPCS') s.proto = proto;
    else if (proto !== undefined && proto !== 'HTTP' && proto !== 'AUTO_HTTP')
      this.fail(
        'backend-protocol',
        `${JSON.stringify(proto)} is not HTTP, HTTPS, GRPC, GRPCS or AUTO_HTTP`,
      );
    s.serviceUpstream = this.flag('service-upstream', false);
    const lb = this.get('load-balance')?.trim();
    if (lb === 'ewma') s.balance = 'leastconn';
    else if (lb !== undefined && lb !== 'round_robin')
      this.fail('load-balance', `${JSON.stringify(lb)} is not round_robin or ewma`);
    // ingress-nginx: upstream-hash-by takes over from load-balance
    const hash = this.get('upstream-hash-by');
    if (hash !== undefined && hash.trim() !== '') {
      const key = hashKeyFormat(hash);
      if ('problem' in key) this.fail('upstream-hash-by', `${JSON.stringify(hash)} ${key.problem}`);
      s.hashKey = key.format;
    }
    const size = this.get('proxy-body-size');
    if (size !== undefined)
      s.bodySize = bytesOf(size, () =>
        this.fail(
          'proxy-body-size',
          `${JSON.stringify(size)} is not an nginx size (like 8m, 512k, 0)`,
        ),
      );
    const connect = this.int('proxy-connect-timeout', 1, 86400);
    if (connect !== undefined) s.timeouts.push(`timeout connect ${connect}s`);
    const read = this.int('proxy-read-timeout', 1, 86400);
    const send = this.int('proxy-send-timeout', 1, 86400);
    const server = Math.max(read ?? 0, send ?? 0);
    if (server > 0) s.timeouts.push(`timeout server ${server}s`);
  }

  private ranges(name: string): string[] | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const out: string[] = [];
    for (const part of v.split(',')) {
      const c = part.trim();
      if (c === '') continue;
      if (!IPV4.test(c) && !IPV6.test(c))
        this.fail(name, `${JSON.stringify(c)} is not an IP address or CIDR`);
      out.push(c);
    }
    if (out.length === 0) this.fail(name, 'lists no address');
    return out;
  }

  private satisfy(): boolean {
    const v = this.get('satisfy')?.trim();
    if (v === undefined || v === '' || v === 'all') return false;
    if (v === 'any') return true;
    return this.fail('satisfy', `${JSON.stringify(v)} is not any or all`);
  }

  private limits(s: NginxSettings): void {
    s.rps = this.int('limit-rps', 1, 1_000_000) ?? undefined;
    s.rpm = this.int('limit-rpm', 1, 1_000_000) ?? undefined;
    s.burst = this.int('limit-burst-multiplier', 1, 1000) ?? 5;
    s.connections = this.int('limit-connections', 1, 1_000_000) ?? undefined;
    s.limitAllow = this.ranges('limit-whitelist') ?? [];
  }

  /** The affinity cookie's name with `affinity: cookie` (unchecked: read() checks it), else undefined. */
  affinityCookie(): string | undefined {
    if (this.get('affinity')?.trim() !== 'cookie') return undefined;
    return this.get('session-cookie-name') ?? 'INGRESSCOOKIE';
  }

  private affinity(s: NginxSettings): void {
    const kind = this.get('affinity')?.trim();
    if (kind === undefined || kind === '') return;
    if (kind !== 'cookie') this.fail('affinity', `${JSON.stringify(kind)} is not cookie`);
    const name = this.get('session-cookie-name') ?? 'INGRESSCOOKIE';
    if (!COOKIE_NAME.test(name))
      this.fail('session-cookie-name', `${JSON.stringify(name)} is not a cookie name`);
    const cpath = this.get('session-cookie-path');
    if (cpath !== undefined && !COOKIE_PATH.test(cpath))
      this.fail('session-cookie-path', `${JSON.stringify(cpath)} is not a cookie path`);
    const maxAge = this.seconds('session-cookie-max-age');
    const expires = this.seconds('session-cookie-expires');
    const sameSite = this.get('session-cookie-samesite')?.trim();
    if (sameSite !== undefined && !/^(None|Lax|Strict)$/i.test(sameSite))
      this.fail(
        'session-cookie-samesite',
        `${JSON.stringify(sameSite)} is not None, Lax or Strict`,
      );
    const mode = this.get('affinity-mode')?.trim();
    // both modes keep a session on its server (HAProxy's cookie persistence); read to check it
    if (mode !== undefined && mode !== '' && mode !== 'balanced' && mode !== 'persistent')
      this.fail('affinity-mode', `${JSON.stringify(mode)} is not balanced or persistent`);
    this.flag('session-cookie-change-on-failure', false);
    const domain = this.get('session-cookie-domain')?.trim().toLowerCase();
    if (domain !== undefined && !DOMAIN.test(domain))
      this.fail('session-cookie-domain', `${JSON.stringify(domain)} is not a domain`);
    s.cookie = {
      name,
      path: cpath,
      maxAge,
      expires,
      sameSite:
        sameSite === undefined
          ? undefined
          : sameSite[0]?.toUpperCase() + sameSite.slice(1).toLowerCase(),
      conditionalSameSiteNone: this.flag('session-cookie-conditional-samesite-none', false),
      secure: this.flag('session-cookie-secure', false),
      domain,
    };
  }

  private seconds(name: string): number | undefined {
    const v = this.get(name)?.trim();
    if (v === undefined || v === '') return undefined;
    if (!SECONDS.test(v)) this.fail(name, `${JSON.stringify(v)} is not a number of seconds`);
    return Number(v);
  }
}
