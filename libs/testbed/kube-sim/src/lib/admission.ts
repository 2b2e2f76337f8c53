import { randomUUID } from 'node:crypto';
import { request } from 'node:https';
import { isIP } from 'node:net';
import { admissionReviewBody } from '#core';
import type { AdmissionRequest, TypeLookup } from './api-types.js';
import {
  evaluateMatchConditions,
  validateMatchConditions,
  type MatchCondition,
} from './match-conditions.js';
import { fromStructured, matchLabels, type StructuredSelector } from './selectors.js';
import { ApiError, errors } from './status.js';
import type { Store } from './store.js';
import { isObject, type KubeObject } from './types.js';

interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

/** One entry of a ValidatingWebhookConfiguration. */
export interface Webhook {
  name: string;
  clientConfig: {
    url?: string;
    caBundle?: string;
    service?: { namespace: string; name: string; path?: string; port?: number };
  };
  rules?: Rule[];
  failurePolicy?: 'Fail' | 'Ignore';
  namespaceSelector?: StructuredSelector;
  objectSelector?: StructuredSelector;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
}

const any = (list: string[] | undefined, v: string) =>
  !list || list.includes('*') || list.includes(v);

function ruleMatches(rule: Rule, r: AdmissionRequest): boolean {
  const t = r.type;
  const resource = r.subresource ? `${t.plural}/${r.subresource}` : t.plural;
  const resOk = (rule.resources ?? []).some((x) => {
    if (x === '*/*') return true;
    if (x === '*') return !r.subresource;
    if (x.startsWith('*/')) return r.subresource === x.slice(2);
    return x === resource;
  });
  const scope = rule.scope ?? '*';
  const scopeOk = scope === '*' || (scope === 'Namespaced') === t.namespaced;
  return (
    any(rule.operations, r.operation) &&
    any(rule.apiGroups, t.group) &&
    any(rule.apiVersions, t.version) &&
    resOk &&
    scopeOk
  );
}

/** Checks a ValidatingWebhookConfiguration the way a real server would, refusing what kube-sim cannot honour. */
export function validateWebhookConfiguration(o: KubeObject): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const hooks = Array.isArray(o.webhooks) ? (o.webhooks as Webhook[]) : [];
  hooks.forEach((w, i) => {
    const f = `webhooks[${i}]`;
    out.push(...validateMatchConditions(f, w.matchConditions ?? []));
    if (!w.sideEffects)
      out.push({
        field: `${f}.sideEffects`,
        message: `${f}.sideEffects: Required value: must specify one of None, NoneOnDryRun`,
      });
    if (!w.admissionReviewVersions?.includes('v1')) {
      out.push({
        field: `${f}.admissionReviewVersions`,
        message: `${f}.admissionReviewVersions: Invalid value: ${JSON.stringify(w.admissionReviewVersions ?? [])}: must include at least one of v1 (kube-sim speaks v1 only)`,
      });
    }
    if (!w.clientConfig?.url === !w.clientConfig?.service)
      out.push({
        field: `${f}.clientConfig`,
        message: `${f}.clientConfig: Required value: exactly one of url or service is required`,
      });
  });
  return out;
}

/** Calls validating admission webhooks over HTTPS with AdmissionReview v1. */
export class Admission {
  constructor(
    private readonly store: Store,
    private readonly registry: TypeLookup,
  ) {}

  /** Runs every matching webhook; throws the real server's error on denial or failure. */
  async review(r: AdmissionRequest): Promise<string[]> {
    const vwcType = this.registry.find(
      'admissionregistration.k8s.io',
      'v1',
      'validatingwebhookconfigurations',
    )!;
    const warnings: string[] = [];
    for (const cfg of this.store.list(vwcType.storageKey)) {
      for (const w of (cfg.webhooks as Webhook[] | undefined) ?? []) {
        if (!this.matches(w, r)) continue;
        const uid = randomUUID();
        const review = this.review_(uid, r);
        if (!this.conditionsMatch(w, r, review.request)) continue;
        warnings.push(...(await this.call(w, r, uid, review)));
      }
    }
    return warnings;
  }

  private matches(w: Webhook, r: AdmissionRequest): boolean {
    if (!(w.rules ?? []).some((rule) => ruleMatches(rule, r))) return false;
    const labelsOf = (o: KubeObject | undefined) => o?.metadata.labels;
    const objSel = fromStructured(w.objectSelector);
    if (
      objSel.length &&
      !matchLabels(objSel, labelsOf(r.object)) &&
      !matchLabels(objSel, labelsOf(r.oldObject))
    )
      return false;
    const nsSel = fromStructured(w.namespaceSelector);
    if (nsSel.length === 0) return true;
    if (r.type.kind === 'Namespace' && r.type.group === '')
      return matchLabels(nsSel, labelsOf(r.object ?? r.oldObject));
    if (!r.type.namespaced) return true;
    const ns = this.store.get('/namespaces', undefined, r.namespace!);
    return matchLabels(nsSel, ns?.metadata.labels);
  }

  /**
   * The webhook's matchConditions, evaluated after its rules and selectors as the API server does:
   * false skips the call, an evaluation error follows failurePolicy (Ignore skips, Fail refuses).
   */
  private conditionsMatch(
    w: Webhook,
    r: AdmissionRequest,
    request: Record<string, unknown>,
  ): boolean {
    if (!w.matchConditions?.length) return true;
    const { object, oldObject, ...rest } = request;
    const ns =
      r.type.namespaced && r.namespace
        ? this.store.get('/namespaces', undefined, r.namespace)
        : undefined;
    const outcome = evaluateMatchConditions(w.matchConditions, {
      object,
      oldObject,
      request: rest,
      namespaceObject: ns ?? null,
    });
    if (!('error' in outcome)) return outcome.match;
    if ((w.failurePolicy ?? 'Fail') === 'Ignore') return false;
    throw errors.internal(
      `failed calling webhook "${w.name}": failed to evaluate match conditions: ${outcome.error}`,
    );
  }

  private async call(
    w: Webhook,
    r: AdmissionRequest,
    uid: string,
    review: unknown,
  ): Promise<string[]> {
    if (r.dryRun && w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') {
      throw errors.badRequest(`admission webhook "${w.name}" does not support dry run`);
    }
    let response: Record<string, unknown>;
    try {
      response = verifyResponse(uid, await this.post(w, review));
    } catch (e) {
      if ((w.failurePolicy ?? 'Fail') === 'Ignore') return [];
      const why = e instanceof Error ? e.message : String(e);
      throw errors.internal(`failed calling webhook "${w.name}": ${why}`);
    }
    if (response.allowed === true)
      return Array.isArray(response.warnings) ? (response.warnings as string[]) : [];
    throw deniedError(w.name, isObject(response.status) ? response.status : {});
  }

  private review_(
    uid: string,
    r: AdmissionRequest,
  ): { apiVersion: string; kind: string; request: Record<string, unknown> } {
    const t = r.type;
    return admissionReviewBody({
      uid,
      group: t.group,
      version: t.version,
      kind: t.kind,
      resource: t.plural,
      subResource: r.subresource,
      name: r.name,
      namespace: r.namespace,
      operation: r.operation,
      userInfo: { username: 'kube-sim-admin', groups: ['system:masters', 'system:authenticated'] },
      object: r.object ?? null,
      oldObject: r.oldObject ?? null,
      dryRun: r.dryRun,
    });
  }

  /**
   * Resolves where to call: the url, or a ready endpoint of the Service (there is no cluster DNS),
   * as the API server's endpoint resolver does: the Service port `service.port` names, its target
   * port resolved through the EndpointSlice port of the same name (a named targetPort), one ready
   * endpoint picked at random.
   */
  private target(w: Webhook): { url: URL; servername: string } {
    const cc = w.clientConfig;
    if (cc.url) {
      const url = new URL(cc.url);
      return { url, servername: url.hostname };
    }
    const svc = cc.service!;
    const service = this.store.get('/services', svc.namespace, svc.name);
    if (!service) throw new Error(`service "${svc.namespace}/${svc.name}" not found`);
    const ports = (service.spec as { ports?: ServicePort[] } | undefined)?.ports ?? [];
    const port = ports.find((p) => p.port === (svc.port ?? 443));
    if (!port) throw new Error(`service "${svc.name}" has no port ${svc.port ?? 443}`);
    const endpoint = this.readyEndpoint(svc.namespace, svc.name, port);
    if (!endpoint) throw new Error(`no endpoints available for service "${svc.name}"`);
    return {
      url: new URL(`https://${endpoint.address}:${endpoint.port}${svc.path ?? '/'}`),
      servername: `${svc.name}.${svc.namespace}.svc`,
    };
  }

  private readyEndpoint(
    ns: string,
    service: string,
    port: ServicePort,
  ): { address: string; port: number } | undefined {
    const ready: { address: string; port: number }[] = [];
    for (const slice of this.store.list('discovery.k8s.io/endpointslices', ns)) {
      if (slice.metadata.labels?.['kubernetes.io/service-name'] !== service) continue;
      const slicePorts = (slice.ports as { name?: string; port?: number }[] | undefined) ?? [];
      const named = slicePorts.find((p) => (p.name ?? '') === (port.name ?? ''))?.port;
      const target = named ?? (typeof port.targetPort === 'number' ? port.targetPort : port.port);
      const eps =
        (slice.endpoints as
          { addresses?: string[]; conditions?: { ready?: boolean } }[] | undefined) ?? [];
      for (const e of eps)
        if (e.conditions?.ready !== false && e.addresses?.length)
          ready.push({ address: e.addresses[0]!, port: target });
    }
    return ready[Math.floor(Math.random() * ready.length)];
  }

  private post(w: Webhook, review: unknown): Promise<Record<string, unknown>> {
    const { url, servername } = this.target(w);
    const body = JSON.stringify(review);
    const timeoutMs = Math.min(w.timeoutSeconds ?? 10, 30) * 1000;
    const ca = w.clientConfig.caBundle
      ? Buffer.from(w.clientConfig.caBundle, 'base64').toString('utf8')
      : undefined;
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method: 'POST',
          ...(ca ? { ca } : {}),
          ...(isIP(servername) ? {} : { servername }),
          timeout: timeoutMs,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            try {
              const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<
                string,
                unknown
              >;
              if (res.statusCode !== 200 || !isObject(parsed.response))
                throw new Error(
                  `Post "${url.href}": unexpected response (HTTP ${res.statusCode ?? 0})`,
                );
              resolve(parsed);
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
            }
          });
        },
      );
      req.on('timeout', () =>
        req.destroy(new Error(`Post "${url.href}": context deadline exceeded`)),
      );
      req.on('error', (e) =>
        reject(new Error(`failed to call webhook: Post "${url.href}": ${e.message}`)),
      );
      req.end(body);
    });
  }
}

/**
 * The checks a real API server makes of a webhook's answer (VerifyAdmissionResponse): an
 * admission.k8s.io/v1 AdmissionReview whose response echoes the request's uid.
 */
function verifyResponse(uid: string, review: Record<string, unknown>): Record<string, unknown> {
  const invalid = (why: string) => new Error(`received invalid webhook response: ${why}`);
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview')
    throw invalid(
      `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(review.apiVersion)}, Kind=${String(review.kind)}`,
    );
  const response = review.response as Record<string, unknown>;
  if (response.uid !== uid)
    throw invalid(
      `expected response.uid="${uid}", got "${typeof response.uid === 'string' ? response.uid : JSON.stringify(response.uid ?? '')}"`,
    );
  return response;
}

/** The error a real API server returns when a webhook denies a request (webhookerrors.ToStatusErr). */
function deniedError(name: string, status: Record<string, unknown>): ApiError {
  const deniedBy = `admission webhook "${name}" denied the request`;
  const code = typeof status.code === 'number' && status.code >= 400 ? status.code : 400;
  const msg =
    typeof status.message === 'string' && status.message
      ? `${deniedBy}: ${status.message}`
      : typeof status.reason === 'string' && status.reason
        ? `${deniedBy}: ${status.reason}`
        : `${deniedBy} without explanation`;
  return new ApiError(
    code,
    (typeof status.reason === 'string' ? status.reason : '') as ApiError['reason'],
    msg,
  );
}
