// `nginx_backend`: one backend of the ingress-nginx library — the lines its Ingress's
// nginx.ingress.kubernetes.io/ annotations give (reader.ts), then its server slots (the Ingress
// library's slot machinery), printed as one section.
import type { Context } from 'liquidjs';
import { OutputLines, OutputSections, escapeLine, escapeOutput } from '../escaper.js';
import { deployedBackend } from '../fragment-globals.js';
import { headerValue, intRange } from '../filters-haproxy.js';
import { filterError, TemplateValueError, innermostObject } from '../provenance.js';
import { serverLines, slotsOf } from '../ingress/filters.js';
import { field, items, orDefault, path, str } from '../liquid-values.js';
import { CANARY_COOKIE_PREFIX, canaryLines, type CanarySplit } from './canary.js';
import { NginxReader, NginxRefusal, defaultNginxSettings, type NginxSettings } from './reader.js';
import { backendPaths } from './routes.js';
import { cookieLines, corsLines, redirectLines, sslRedirectLines } from './backend-lines.js';
import { authLines, userlistLines } from './auth-lines.js';
import { externalAuthLines, type ProxyHeaders } from './external-auth-lines.js';
import { authProxyHeadersOf, type AuthProxyHeaders } from './external-auth.js';
import {
  customErrorRequestLines,
  customErrorResponseLines,
  type ErrorTarget,
} from './custom-errors.js';
import { fallbackOf, globalFallbackOf } from './default-backend.js';
import { basicAuthSpec, nginxAuthOf, type NginxAuth } from './auth.js';
import { lookup } from '../filters-context.js';
import { proxySslOf, proxySslSpec, type ProxySsl } from './proxy-ssl.js';
import { proxySslOpts } from './proxy-ssl-lines.js';
import { retryLines } from './reader-retry.js';
import { clusterSlots } from './service-upstream.js';
import {
  allowedHeaders,
  customHeadersOf,
  customHeadersSpec,
  type CustomHeaders,
} from './custom-headers.js';

type FilterThis = { context: Context };

/** The server options of each backend protocol; HTTPS and GRPCS take backend TLS (proxy-ssl-*). */
function protoOpts(ctx: Context, s: NginxSettings, ssl: ProxySsl | undefined): string {
  if (s.proto === 'HTTP') return '';
  if (s.proto === 'GRPC') return ' proto h2';
  return proxySslOpts(ctx, s.proto === 'GRPCS' ? ' alpn h2' : '', ssl);
}

/** Rewrites of the Ingress's paths to this backend (`rewrite-target`), first matching path wins. */
function rewriteLines(s: NginxSettings, paths: readonly string[]): string[] {
  if (s.rewrite === undefined) return [];
  const target = `'${s.rewrite}'`;
  if (paths.length === 1) return [`http-request replace-path '(?i)${paths[0] ?? '/'}' ${target}`];
  const lines: string[] = [];
  paths.forEach((p, i) => {
    lines.push(
      `http-request set-var(txn.nginx_loc) int(${i}) if !{ var(txn.nginx_loc) -m found } { var(txn.path) -m reg '^(?i:${p})' }`,
      `http-request replace-path '(?i)${p}' ${target} if { var(txn.nginx_loc) -m int ${i} }`,
    );
  });
  return lines;
}

/**
 * limit-rps, limit-rpm and limit-connections: one stick table per backend tracking the client
 * address. A table stores one `http_req_rate` period, so the per-minute count is `gpc0_rate(60s)`,
 * incremented once per tracked request (the same count by another name).
 */
export function limitLines(s: NginxSettings): string[] {
  if (s.rps === undefined && s.rpm === undefined && s.connections === undefined) return [];
  const unless =
    s.limitAllow.length > 0 ? ` !{ var(txn.nginx_client) -m ip ${s.limitAllow.join(' ')} }` : '';
  const perMinute = s.rpm === undefined ? '' : ',gpc0_rate(60s)';
  const lines = [
    `stick-table type ipv6 size 100k expire ${s.rpm === undefined ? 60 : 120}s store http_req_rate(1s)${perMinute},conn_cur`,
    `http-request track-sc0 var(txn.nginx_client)${unless === '' ? '' : ` if${unless}`}`,
  ];
  // ingress-nginx answers 503 (limit-req-status-code); a burst of rate x multiplier is allowed
  if (s.rps !== undefined)
    lines.push(
      `http-request deny deny_status 503 if { sc_http_req_rate(0) gt ${s.rps * s.burst} }${unless}`,
    );
  if (s.rpm !== undefined)
    lines.push(
      'http-request sc-inc-gpc0(0)',
      `http-request deny deny_status 503 if { sc0_gpc0_rate gt ${s.rpm * s.burst} }${unless}`,
    );
  if (s.connections !== undefined)
    lines.push(
      `http-request deny deny_status 503 if { sc_conn_cur(0) gt ${s.connections} }${unless}`,
    );
  return lines;
}

/**
 * nginx's access phase: the source ranges, then auth_basic. With `satisfy: any` and basic auth,
 * either suffices: a client the ranges allow (in the allow-list, not in the deny-list) skips
 * the credentials; any other client is asked for them and a failure is 401, as nginx answers.
 */
export function accessLines(
  ctx: Context,
  s: NginxSettings,
  auth: { readonly be: string; readonly auth: NginxAuth | undefined },
): string[] {
  const client = 'var(txn.nginx_client) -m ip';
  const withAuth = auth.auth !== undefined && auth.auth.denied === undefined;
  if (s.satisfyAny && withAuth && (s.allow.length > 0 || s.deny.length > 0)) {
    const allowed = [
      s.allow.length > 0 ? `{ ${client} ${s.allow.join(' ')} }` : '{ always_false }',
      ...(s.deny.length > 0 ? [`!{ ${client} ${s.deny.join(' ')} }`] : []),
    ];
    return [
      `http-request set-var(txn.nginx_access) bool(true) if ${allowed.join(' ')}`,
      ...authLines(ctx, auth.be, auth.auth, '!{ var(txn.nginx_access) -m bool }'),
    ];
  }
  const lines: string[] = [];
  if (s.deny.length > 0)
    lines.push(`http-request deny deny_status 403 if { ${client} ${s.deny.join(' ')} }`);
  if (s.allow.length > 0)
    lines.push(`http-request deny deny_status 403 unless { ${client} ${s.allow.join(' ')} }`);
  return [...lines, ...authLines(ctx, auth.be, auth.auth)];
}

function backendLines(
  ctx: Context,
  s: NginxSettings,
  paths: readonly string[],
  auth: {
    readonly be: string;
    readonly auth: NginxAuth | undefined;
    readonly denied?: boolean;
    /** auth-proxy-set-headers' entries. */
    readonly authHeaders?: ProxyHeaders | undefined;
    /** custom-http-errors' default backend and what its error requests say. */
    readonly errorTarget?: ErrorTarget | undefined;
  },
  headers?: CustomHeaders,
): string[] {
  const q = { context: ctx };
  const hv = (v: string): string => escapeOutput.call(q, headerValue.call(q, v));
  const lines =
    s.hashKey === undefined
      ? [`balance ${s.balance}`, ...s.timeouts]
      : [
          'balance hash var(txn.nginx_hash)',
          'hash-type consistent',
          ...s.timeouts,
          `http-request set-var-fmt(txn.nginx_hash) "${s.hashKey}"`,
        ];
  // custom-http-errors' X-Original-URI and X-Format: the request as it came
  const errors = auth.errorTarget;
  if (errors !== undefined) lines.push(...customErrorRequestLines(s.customErrors, errors));
  // ingress-nginx's denied location (basic auth without its Secret) answers 503 before anything
  // (so does one whose proxy-ssl-secret cannot serve, or whose custom-headers ConfigMap is missing)
  if (auth.auth?.denied !== undefined || auth.denied === true || headers?.denied !== undefined)
    lines.push('http-request deny deny_status 503');
  // nginx's phases: the body size (on finding the location), its rewrite phase (app-root, the
  // redirects, the CORS preflight answer, then the Lua HTTPS redirect), limits, access (ranges)
  if (s.bodySize > 0)
    lines.push(
      `http-request deny deny_status 413 if { req.hdr_val(content-length) gt ${s.bodySize} }`,
    );
  lines.push(...redirectLines(s, hv), ...corsLines(s, hv), ...sslRedirectLines(s));
  lines.push(...limitLines(s));
  lines.push(...accessLines(ctx, s, auth));
  // nginx's access phase ends with auth_request (after allow/deny and basic auth)
  lines.push(...externalAuthLines(s.extAuth, hv, auth.be, auth.authHeaders));
  lines.push(...rewriteLines(s, paths));
  if (s.xForwardedPrefix !== undefined)
    lines.push(`http-request set-header X-Forwarded-Prefix ${hv(s.xForwardedPrefix)}`);
  if (s.upstreamVhost !== undefined)
    lines.push(`http-request set-header Host ${hv(s.upstreamVhost)}`);
  if (s.cookie !== undefined) lines.push(...cookieLines(s.cookie, paths, hv));
  const grpc = s.proto === 'GRPC' || s.proto === 'GRPCS';
  lines.push(...retryLines(s.retry, s.requestBuffering, grpc));
  if (errors !== undefined) lines.push(...customErrorResponseLines(s.customErrors, errors, hv));
  // more_set_headers: every answer, HAProxy's own (deny, errors) too
  for (const [name, value] of headers?.headers ?? [])
    lines.push(`http-after-response set-header ${name} ${hv(value)}`);
  return lines.map((l) => escapeLine.call(q, l));
}

/**
 * `nginx.canaries | nginx_canaries`: the frontend lines resolving each mainline route with a
 * canary to the canary's backend or the mainline's (canary.ts), one per line after `\n  `.
 */
export function nginxCanaries(this: FilterThis, splits: unknown): OutputLines {
  const q = { context: this.context };
  const lines = items(splits).flatMap((s) => canaryLines(s as CanarySplit));
  return new OutputLines(
    lines.map((l) => escapeLine.call(q, l)),
    '\n  ',
  );
}

/**
 * `backend | nginx_backend: extra, resources.endpointslices, resources.services,
 * previous.backends, resources.secrets, resources.configmaps`: one backend of `nginx.backends` as its whole section — its
 * basic-auth userlist, `backend <name>`, the lines its Ingress's ingress-nginx annotations give
 * (`ing_` backends) or the library's defaults (`svc_` backends), and its server slots. A bad
 * value fails the render for that Ingress.
 */
export function nginxBackend(
  this: FilterThis,
  backend: unknown,
  extra: unknown,
  slicesList: unknown,
  servicesList: unknown,
  deployed: unknown,
  secretsList?: unknown,
  configMapsList?: unknown,
): OutputSections {
  const ctx = this.context;
  const ing = field(backend, 'ingress');
  ctx.push({ ing });
  try {
    const be = str(field(backend, 'name'));
    const s = defaultNginxSettings(extra);
    let paths: string[] = [];
    let auth: NginxAuth | undefined;
    let ssl: ProxySsl | undefined;
    let headers: CustomHeaders | undefined;
    let authHeaders: AuthProxyHeaders | undefined;
    let errorTarget: ErrorTarget | undefined;
    let canary = false;
    if (be.startsWith('ing_') && ing !== null && typeof ing === 'object') {
      const reader = new NginxReader(ing, extra);
      reader.read(s);
      if (s.extAuth?.proxyHeaders !== undefined) {
        const maps = (keys: readonly string[]) =>
          lookup(ctx, 'nginx_backend', configMapsList, keys);
        const ref = s.extAuth.proxyHeaders;
        authHeaders = authProxyHeadersOf(ref, configMapsList ? maps : undefined);
      }
      const spec = basicAuthSpec(ing);
      // the provider reports the notices; the Secret read here is this fragment's dependency
      const secrets = (keys: readonly string[]) => lookup(ctx, 'nginx_backend', secretsList, keys);
      if (spec !== undefined) auth = nginxAuthOf(ing, spec, secretsList ? secrets : undefined, []);
      const sslSpec = proxySslSpec(ing, []);
      if (sslSpec !== undefined)
        ssl = proxySslOf(ing, sslSpec, secretsList ? secrets : undefined, []);
      const headersSpec = customHeadersSpec(ing);
      if (headersSpec !== undefined) {
        const maps = (keys: readonly string[]) =>
          lookup(ctx, 'nginx_backend', configMapsList, keys);
        const allowed = allowedHeaders(extra);
        headers = customHeadersOf(ing, headersSpec, configMapsList ? maps : undefined, allowed);
      }
      if (s.customErrors.length > 0) {
        const services = (keys: readonly string[]) =>
          lookup(ctx, 'nginx_backend', servicesList, keys);
        const namespace = str(path(ing, 'metadata', 'namespace'));
        errorTarget = {
          fallback:
            fallbackOf(ing, namespace, servicesList ? services : undefined) ??
            globalFallbackOf(extra, servicesList ? services : undefined)?.backend,
          namespace,
          ingress: str(path(ing, 'metadata', 'name')),
          service: str(field(backend, 'service')),
          port: str(field(backend, 'port')),
        };
      }
      // a canary backend takes its mainline's paths (`main_service`, `main_port`)
      const service = field(backend, 'main_service') ?? field(backend, 'service');
      const port = field(backend, 'main_port') ?? field(backend, 'port');
      paths = backendPaths(ing, str(service), str(port));
      // affinity-canary-behavior legacy: the canary has no session affinity (ingress-nginx
      // copies the mainline's only when sticky); sticky: its cookie values say "canary"
      canary = field(backend, 'main_service') !== undefined;
      if (canary && field(backend, 'canary_sticky') === false) s.cookie = undefined;
    }
    if (!be.startsWith('ing_') && s.customErrors.length > 0) {
      // a shared Service backend (Ingresses without ingress-nginx annotations) takes the
      // library's custom_http_errors; X-Ingress-Name is empty, several Ingresses may share it
      const services = (keys: readonly string[]) =>
        lookup(ctx, 'nginx_backend', servicesList, keys);
      const global = globalFallbackOf(extra, servicesList ? services : undefined);
      if (global?.backend !== be)
        errorTarget = {
          fallback: global?.backend,
          namespace: str(field(backend, 'namespace')),
          ingress: '',
          service: str(field(backend, 'service')),
          port: str(field(backend, 'port')),
        };
    }
    const opts = protoOpts(ctx, s, ssl);
    const fixed = opts !== '' || s.cookie !== undefined;
    const slots = intRange.call(
      { context: ctx },
      fixed
        ? orDefault(field(extra, 'server_slots_fixed'), 8)
        : orDefault(field(extra, 'server_slots'), 2),
      1,
      1024,
    );
    const deployedServers = field(deployedBackend(deployed, be), 'servers');
    const found =
      (s.serviceUpstream
        ? clusterSlots(ctx, servicesList, backend, slots, deployedServers)
        : undefined) ??
      slotsOf(ctx, slicesList, servicesList, backend ?? {}, slots, deployedServers);
    const cookie = s.cookie === undefined ? '' : s.cookie.name;
    const head = new OutputLines([`backend ${escapeOutput.call({ context: ctx }, be)}`], '');
    const denied = ssl?.denied !== undefined || authHeaders?.denied !== undefined;
    const lines = new OutputLines(
      backendLines(
        ctx,
        s,
        paths,
        { be, auth, denied, authHeaders: authHeaders?.headers, errorTarget },
        headers,
      ),
      '\n  ',
    );
    const users = userlistLines(ctx, be, auth);
    const servers = serverLines(found, opts, cookie, canary ? CANARY_COOKIE_PREFIX : '');
    return new OutputSections([users, head, lines, servers]);
  } catch (err) {
    if (err instanceof NginxRefusal)
      throw filterError(
        ctx,
        'nginx_backend',
        new TemplateValueError('fail', err.message, innermostObject(ctx)),
      );
    throw filterError(ctx, 'nginx_backend', err);
  } finally {
    ctx.pop();
  }
}
