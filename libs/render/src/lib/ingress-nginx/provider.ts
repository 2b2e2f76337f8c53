// `nginx`: the ingress-nginx library's model — the Ingress model (class selection, hosts, paths,
// backends, TLS, conflicts) with backends of their own for Ingresses carrying ingress-nginx
// annotations or TLS, ingress-nginx's regex hosts and server aliases, and every annotation judged:
// refused ones (snippets, FCGI…) and bad values refuse the Ingress naming the annotation; ones
// not honoured yet are listed (`unhonoured`) for the controller to report.
import { objectRef } from '../snapshot.js';
import { RejectedObjectsError } from '../provenance.js';
import type {
  ContextProvider,
  ProviderContext,
  RenderNotice,
  RenderProblem,
  RenderSnapshot,
} from '../types.js';
import { ingressModel, servedReadsOf, type IngressModel } from '../ingress/model.js';
import { field, items, path, str } from '../liquid-values.js';
import { judgeAnnotation } from './catalogue.js';
import { NGINX_PREFIX } from './catalogue-types.js';
import { NginxReader, NginxRefusal, defaultNginxSettings, ingressIdOf } from './reader.js';
import { nginxRoutes, type NginxRoutes } from './routes.js';
import { basicAuthSpec, nginxAuthOf } from './auth.js';
import { proxySslNotices } from './proxy-ssl.js';
import { isCanary } from './canary.js';
import { customHeadersNotices, customHeadersSpec } from './custom-headers.js';
import { authProxyHeadersOf, readExternalAuth } from './external-auth.js';
import { canaryPart, withCanaries, type CanaryPart } from './canary-model.js';
import type { CanarySplit } from './canary.js';
import { clientAuthPolicy, clientAuthSpec, type ClientAuthPolicy } from './client-auth.js';
import { tlsWithClientAuth, type NginxTls } from './client-auth-lines.js';
import { wwwRedirects, type WwwRedirect } from './www.js';
import {
  defaultBackendSpec,
  defaultBackendsOf,
  globalFallbackOf,
  type NginxFallback,
} from './default-backend.js';
import { globalCustomErrors, globalDefaultBackendSpec } from './custom-errors.js';
import {
  NO_PASSTHROUGH,
  passthroughOf,
  wantsPassthrough,
  type NginxPassthrough,
} from './passthrough.js';

/** An annotation an Ingress carries that the library does not honour (yet): served without it. */
export interface Unhonoured {
  /** `namespace/name` of the Ingress. */
  readonly ingress: string;
  readonly annotation: string;
  /** `not-yet-honoured`, `unknown`, or `no-effect` (a canary rule on an Ingress not a canary). */
  readonly verdict: string;
  readonly detail: string;
}

/** What the ingress-nginx library's templates read. */
export interface NginxModel extends NginxRoutes {
  readonly served: IngressModel['served'];
  readonly default_backend: string;
  readonly backends: IngressModel['backends'];
  /** The spec.tls entries, a host with a client-certificate policy on an entry of its own. */
  readonly tls: readonly NginxTls[];
  /** The client-certificate policy of each host that has one (the oldest Ingress's). */
  readonly client_auth: readonly ClientAuthPolicy[];
  readonly unhonoured: readonly Unhonoured[];
  /** The mainline routes with a canary, resolved in the frontend (`nginx_canaries`). */
  readonly canaries: readonly CanarySplit[];
  /** from-to-www-redirect: hosts answered with a 308 to their Ingress's host. */
  readonly www_redirects: readonly WwwRedirect[];
  /** Some served Ingress has auth-url: haproxy.cfg loads the vetted auth-request.lua. */
  readonly external_auth: boolean;
  /** An Ingress uses custom-http-errors with a default backend: the error-page Lua is loaded. */
  readonly custom_errors: boolean;
  /** default-backend: the Ingress backends answered by a default backend while they have no server. */
  readonly fallbacks: readonly NginxFallback[];
  /**
   * ssl-passthrough (with enable_ssl_passthrough): the hosts whose TLS connections go by SNI to a
   * TCP backend; empty, the HTTPS listener terminates TLS as without it.
   */
  readonly passthrough: NginxPassthrough;
  /**
   * The library's default_backend_service as a backend (`svc_…`): requests no Ingress matches go
   * to it (ingress-nginx's --default-backend-service); "" unset or while its Service is missing.
   */
  readonly global_default_backend: string;
}

interface Judged {
  readonly problem: RenderProblem | undefined;
  readonly unhonoured: readonly Unhonoured[];
}

function problemOf(ing: object, err: unknown): RenderProblem {
  if (!(err instanceof NginxRefusal)) throw err;
  return {
    code: 'invalid-value',
    template: 'context:nginx',
    message: err.message,
    object: objectRef('ingresses', ing),
  };
}

// An Ingress object never changes in place: its verdict holds while it is the same object.
const JUDGED = new WeakMap<object, Judged>();

/** Every nginx annotation of one Ingress judged, and its values read once (refusals thrown). */
function judge(ing: object): Judged {
  const known = JUDGED.get(ing);
  if (known) return known;
  const id = ingressIdOf(ing);
  const unhonoured: Unhonoured[] = [];
  let problem: RenderProblem | undefined;
  try {
    for (const kv of items(path(ing, 'metadata', 'annotations'))) {
      const key = str((kv as unknown[])[0]);
      if (!key.startsWith(NGINX_PREFIX)) continue;
      const v = judgeAnnotation(key, str((kv as unknown[])[1]));
      if (v.verdict === 'refused')
        throw new NginxRefusal(`Ingress ${id}: annotation ${key}: ${v.detail}`);
      if (v.verdict === 'not-yet-honoured' || v.verdict === 'unknown')
        unhonoured.push({ ingress: id, annotation: key, verdict: v.verdict, detail: v.detail });
    }
    if (!isCanary(ing)) unhonoured.push(...canaryRulesUnread(ing, id)); // (a bad value: refused)
    // the values, as the backend will read them (an Ingress-wide default for the settings)
    new NginxReader(ing, {}).read(defaultNginxSettings({}));
    basicAuthSpec(ing);
    clientAuthSpec(ing);
    customHeadersSpec(ing);
    defaultBackendSpec(ing);
    wantsPassthrough(ing);
  } catch (err) {
    problem = problemOf(ing, err);
  }
  const judged = { problem, unhonoured };
  JUDGED.set(ing, judged);
  return judged;
}

/** The canary-* rules of an Ingress that is not a canary: ingress-nginx ignores them. */
function canaryRulesUnread(ing: object, id: string): Unhonoured[] {
  return items(path(ing, 'metadata', 'annotations'))
    .map((kv) => str((kv as unknown[])[0]))
    .filter((k) => k.startsWith(`${NGINX_PREFIX}canary-`))
    .map((annotation) => ({
      ingress: id,
      annotation,
      verdict: 'no-effect',
      detail:
        'only an Ingress with nginx.ingress.kubernetes.io/canary: "true" reads it, as in ingress-nginx',
    }));
}

interface Built {
  readonly model: NginxModel;
  readonly problems: readonly RenderProblem[];
  readonly notices: readonly RenderNotice[];
}

const BUILT = new WeakMap<IngressModel, { canaries: CanaryPart; built: Built }>();

function nginxModelOf(model: IngressModel, canaries: CanaryPart): Built {
  const known = BUILT.get(model);
  if (known && known.canaries === canaries) return known.built;
  const problems: RenderProblem[] = [...canaries.problems];
  const unhonoured: Unhonoured[] = [];
  const notices: RenderNotice[] = [];
  for (const ing of [...model.served, ...canaries.served]) {
    const j = judge(ing);
    if (j.problem) problems.push(j.problem);
    unhonoured.push(...j.unhonoured);
    notices.push(...j.unhonoured.map((u) => noticeOf(ing, u)));
  }
  const paired = withCanaries(servedReadsOf(model), model.backends, canaries, notices);
  const routes = nginxRoutes(paired.served, (r, err) => problems.push(problemOf(r.ing, err)));
  const built = {
    model: {
      served: model.served,
      ...routes,
      default_backend: model.default_backend,
      backends: paired.backends,
      tls: model.tls,
      client_auth: [],
      unhonoured,
      canaries: paired.splits,
      www_redirects: wwwRedirects(paired.served),
      external_auth: [...model.served, ...canaries.served].some(hasAuthUrl),
      custom_errors: [...model.served, ...canaries.served].some(hasCustomErrors),
      fallbacks: [],
      passthrough: NO_PASSTHROUGH,
      global_default_backend: '',
    },
    problems,
    notices,
  };
  BUILT.set(model, { canaries, built });
  return built;
}

/** custom-http-errors with a default-backend: the Lua action may ask the default backend. */
function hasCustomErrors(ing: object): boolean {
  const an = path(ing, 'metadata', 'annotations');
  const codes = field(an, `${NGINX_PREFIX}custom-http-errors`);
  const dflt = field(an, `${NGINX_PREFIX}default-backend`);
  return typeof codes === 'string' && codes.trim() !== '' && typeof dflt === 'string';
}

function hasAuthUrl(ing: object): boolean {
  const v = field(path(ing, 'metadata', 'annotations'), `${NGINX_PREFIX}auth-url`);
  return typeof v === 'string' && v.trim() !== '';
}

/** The notice of an annotation served without effect (a Warning Event on the Ingress). */
function noticeOf(ing: object, u: Unhonoured): RenderNotice {
  const what =
    u.verdict === 'unknown'
      ? 'unknown'
      : u.verdict === 'no-effect'
        ? 'without effect'
        : 'not honoured';
  return {
    reason: 'AnnotationNotHonoured',
    message: `Ingress ${u.ingress}: annotation ${u.annotation} is ${what}, served without it (${u.detail})`,
    object: objectRef('ingresses', ing),
  };
}

function listed(snapshot: RenderSnapshot, context: ProviderContext, watched: string) {
  return context.watched.includes(watched) ? snapshot.list(watched) : [];
}

/**
 * The notices of the served Ingresses' basic auth (a missing Secret, lines left out), read afresh
 * at each render: a Secret changes without its Ingress. The backends read the users themselves
 * (nginx_backend), so a fragment depends on its Secret only.
 */
function authNotices(
  served: readonly object[],
  snapshot: RenderSnapshot,
  context: ProviderContext,
): RenderNotice[] {
  const notices: RenderNotice[] = [];
  const secrets = context.watched.includes('secrets')
    ? (keys: readonly string[]) => snapshot.lookup('secrets', keys)
    : undefined;
  for (const ing of served) {
    const spec = basicAuthSpec(ing);
    if (spec !== undefined) nginxAuthOf(ing, spec, secrets, notices);
    notices.push(...proxySslNotices(ing, secrets));
  }
  return notices;
}

/**
 * A notice per served Ingress whose auth-proxy-set-headers ConfigMap is missing or invalid (its
 * locations answer 503), read afresh at each render: a ConfigMap changes without its Ingress.
 */
function authProxyHeadersNotices(
  served: readonly object[],
  configMaps: ((keys: readonly string[]) => readonly object[]) | undefined,
): RenderNotice[] {
  const notices: RenderNotice[] = [];
  for (const ing of served) {
    if (!hasAuthUrl(ing)) continue;
    const ref = readExternalAuth(new NginxReader(ing, {}))?.proxyHeaders;
    const denied = ref === undefined ? undefined : authProxyHeadersOf(ref, configMaps).denied;
    if (denied !== undefined)
      notices.push({
        message: `Ingress ${ingressIdOf(ing)}: ${denied}`,
        object: objectRef('ingresses', ing),
      });
  }
  return notices;
}

/**
 * The client-certificate policies of the served Ingresses' hosts (the oldest Ingress naming
 * auth-tls-secret for a host sets it, as ingress-nginx keeps one per server), read afresh at
 * each render: a CA Secret changes without its Ingress. Notices go to `notices`.
 */
function clientAuthOf(
  served: readonly object[],
  snapshot: RenderSnapshot,
  context: ProviderContext,
  notices: RenderNotice[],
): Map<string, ClientAuthPolicy> {
  const byHost = new Map<string, ClientAuthPolicy>();
  const secrets = context.watched.includes('secrets')
    ? (keys: readonly string[]) => snapshot.lookup('secrets', keys)
    : undefined;
  for (const ing of served) {
    const spec = clientAuthSpec(ing);
    if (spec === undefined) continue;
    for (const rule of items(path(ing, 'spec', 'rules'))) {
      const host = str(field(rule, 'host')).toLowerCase();
      if (host === '' || byHost.has(host)) continue;
      byHost.set(host, clientAuthPolicy(ing, host, spec, secrets, notices));
    }
  }
  return byHost;
}

/** Settings the library refuses outright rather than ignore. */
function checkSettings(extra: Readonly<Record<string, unknown>>): void {
  try {
    defaultNginxSettings(extra); // reads proxy_body_size: a bad one fails the render, not an Ingress
  } catch (err) {
    if (err instanceof NginxRefusal) throw new Error(err.message, { cause: err });
    throw err;
  }
  if (field(extra, 'allow_snippet_annotations') === true)
    throw new Error(
      'templatingSettings.extraContext.allow_snippet_annotations: true is not supported: snippet annotations are never pasted into haproxy.cfg (leave it false)',
    );
  globalDefaultBackendSpec(extra);
  globalCustomErrors(extra);
  const passthrough = field(extra, 'enable_ssl_passthrough');
  if (passthrough !== undefined && typeof passthrough !== 'boolean')
    throw new Error(
      `templatingSettings.extraContext.enable_ssl_passthrough: ${JSON.stringify(passthrough)} is not true or false`,
    );
}

/**
 * `nginx`: the ingress-nginx library's model of the snapshot, computed once per render on first
 * use. Ingresses it refuses are reported all at once (RejectedObjectsError).
 */
export const ingressNginxProvider: ContextProvider = {
  name: 'nginx',
  lazy: true,
  provide(snapshot: RenderSnapshot, context: ProviderContext): NginxModel {
    checkSettings(context.extra);
    const inputs = {
      ingressClasses: listed(snapshot, context, 'ingressclasses'),
      ingresses: listed(snapshot, context, 'ingresses'),
      controllerName: context.extra['controller_name'],
      flavour: 'ingress-nginx' as const,
    };
    // canaries share host and path with their mainline: modelled apart, never a conflict
    const canaries = canaryPart(inputs);
    const { model, problems } = ingressModel(
      { ...inputs, ingresses: inputs.ingresses.filter((i) => !canaries.all.has(i)) },
      { reuse: context.incremental !== false },
    );
    const nginx = nginxModelOf(model, canaries);
    const all = [...problems, ...nginx.problems];
    if (all.length > 0) throw new RejectedObjectsError(all);
    for (const n of nginx.notices) context.notice?.(n);
    for (const n of authNotices(nginx.model.served, snapshot, context)) context.notice?.(n);
    const maps = context.watched.includes('configmaps')
      ? (keys: readonly string[]) => snapshot.lookup('configmaps', keys)
      : undefined;
    for (const n of customHeadersNotices(nginx.model.served, maps)) context.notice?.(n);
    for (const n of authProxyHeadersNotices(nginx.model.served, maps)) context.notice?.(n);
    const notices: RenderNotice[] = [];
    const byHost = clientAuthOf(nginx.model.served, snapshot, context, notices);
    const services = context.watched.includes('services')
      ? (keys: readonly string[]) => snapshot.lookup('services', keys)
      : undefined;
    // read afresh at each render: a default backend's Service changes without its Ingress
    const dflt = defaultBackendsOf(nginx.model.backends, services);
    for (const n of [...notices, ...dflt.notices]) context.notice?.(n);
    const withDefaults =
      dflt.fallbacks.length === 0
        ? nginx.model
        : {
            ...nginx.model,
            backends: [...nginx.model.backends, ...dflt.backends],
            fallbacks: dflt.fallbacks,
          };
    const withGlobal = globalDefaultPart(withDefaults, context.extra, services, context);
    const withPassthrough = passthroughPart(withGlobal, context);
    if (byHost.size === 0) return withPassthrough;
    return {
      ...withPassthrough,
      tls: tlsWithClientAuth(nginx.model.tls, byHost),
      client_auth: [...byHost.values()],
    };
  },
};

/**
 * The library's controller-wide settings: default_backend_service (a backend for requests no
 * Ingress matches, and custom-http-errors' target where an Ingress names no default-backend) and
 * custom_http_errors (every location without the annotation: the error-page Lua is loaded).
 */
function globalDefaultPart(
  model: NginxModel,
  extra: Readonly<Record<string, unknown>>,
  services: ((keys: readonly string[]) => readonly object[]) | undefined,
  context: ProviderContext,
): NginxModel {
  const spec = globalDefaultBackendSpec(extra);
  const codes = globalCustomErrors(extra);
  const fb = globalFallbackOf(extra, services);
  if (spec !== undefined && fb === undefined)
    context.notice?.({
      reason: 'DefaultBackendNotFound',
      message: `templatingSettings.extraContext.default_backend_service: Service ${spec.join('/')} not found or without a port; requests no Ingress matches get the library's 404`,
    });
  // the error-page Lua is loaded when some Ingress has codes (its own or the library's) and a
  // default backend (its own or the library's) to ask
  const asks = (ing: object) => {
    const an = path(ing, 'metadata', 'annotations');
    const own = field(an, `${NGINX_PREFIX}custom-http-errors`);
    const hasCodes = codes.length > 0 || (typeof own === 'string' && own.trim() !== '');
    return hasCodes && (fb !== undefined || defaultBackendSpec(ing) !== undefined);
  };
  const custom_errors = model.custom_errors || model.served.some(asks);
  if (fb === undefined)
    return custom_errors === model.custom_errors ? model : { ...model, custom_errors };
  const known = model.backends.some((b) => b.name === fb.backend);
  return {
    ...model,
    custom_errors,
    global_default_backend: fb.backend,
    backends: known
      ? model.backends
      : [
          ...model.backends,
          {
            name: fb.backend,
            namespace: fb.namespace,
            service: fb.service,
            port: fb.port,
            // a svc_ backend reads no annotation: the library's defaults
            ingress: {},
          },
        ],
  };
}

type Passthrough = ReturnType<typeof passthroughOf>;
const PASSTHROUGH = new WeakMap<readonly object[], Map<boolean, Passthrough>>();

/**
 * ssl-passthrough of the served Ingresses with the library's enable_ssl_passthrough (kept while
 * both hold); an Ingress asking for it in vain gets a notice and is served without it.
 */
function passthroughPart(model: NginxModel, context: ProviderContext): NginxModel {
  const enabled = field(context.extra, 'enable_ssl_passthrough') === true;
  let known = PASSTHROUGH.get(model.served);
  if (!known) PASSTHROUGH.set(model.served, (known = new Map<boolean, Passthrough>()));
  let part = known.get(enabled);
  if (!part) known.set(enabled, (part = passthroughOf(model.served, enabled)));
  if (part.passthrough.routes.length === 0 && part.unread.length === 0) return model;
  const unhonoured = part.unread.map(({ ing, detail }) => {
    const u: Unhonoured = {
      ingress: ingressIdOf(ing),
      annotation: `${NGINX_PREFIX}ssl-passthrough`,
      verdict: 'no-effect',
      detail,
    };
    context.notice?.(noticeOf(ing, u));
    return u;
  });
  return {
    ...model,
    passthrough: part.passthrough,
    unhonoured: [...model.unhonoured, ...unhonoured],
  };
}
