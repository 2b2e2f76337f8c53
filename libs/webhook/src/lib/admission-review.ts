import { admissionReviewBody, type AdmissionReviewInput } from '#core';
/** The parts of an admission.k8s.io/v1 AdmissionReview request the webhook reads. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: {
    readonly group: string;
    readonly version: string;
    readonly resource: string;
  };
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly object?: Record<string, unknown> | null;
  readonly oldObject?: Record<string, unknown> | null;
  readonly dryRun?: boolean;
}

/** What the webhook answers for one request (becomes AdmissionReview.response). */
export interface AdmissionVerdict {
  readonly allowed: boolean;
  /** Shown to the client on a denial (`admission webhook "..." denied the request: <message>`). */
  readonly message?: string;
  /** HTTP code the API server reports for a denial (default 400 there as here). */
  readonly code?: number;
  readonly warnings?: readonly string[];
}

/** A request body that is not an AdmissionReview v1 request: answered 400 with the reason. */
export class MalformedReviewError extends Error {
  override readonly name = 'MalformedReviewError';
  readonly code = 'HAPTIC_WEBHOOK_MALFORMED_REVIEW';
}

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads an AdmissionReview v1 request (throws MalformedReviewError naming what is wrong). */
export function parseAdmissionReview(body: unknown): AdmissionRequest {
  if (!isRecord(body)) throw new MalformedReviewError('body is not a JSON object');
  if (body['apiVersion'] !== 'admission.k8s.io/v1' || body['kind'] !== 'AdmissionReview')
    throw new MalformedReviewError(
      `expected apiVersion admission.k8s.io/v1 and kind AdmissionReview, got ${String(body['apiVersion'])} ${String(body['kind'])}`,
    );
  const r = body['request'];
  if (!isRecord(r)) throw new MalformedReviewError('request: missing');
  if (typeof r['uid'] !== 'string' || r['uid'] === '')
    throw new MalformedReviewError('request.uid: missing');
  if (typeof r['operation'] !== 'string' || !OPERATIONS.has(r['operation']))
    throw new MalformedReviewError(`request.operation: unknown ${String(r['operation'])}`);
  for (const f of ['kind', 'resource'] as const)
    if (!isRecord(r[f])) throw new MalformedReviewError(`request.${f}: missing`);
  return r as unknown as AdmissionRequest;
}

/** Longest message returned (the API server passes it to the client verbatim). */
const MAX_MESSAGE = 2048;

/**
 * A message as one line: control characters (an untrusted value's newline, say) shown escaped,
 * so a client prints the reason exactly as it is, and at most MAX_MESSAGE characters.
 */
export function oneLine(message: string): string {
  const escaped = [...message]
    .map((c) =>
      c === '\n'
        ? '\\n'
        : c === '\r'
          ? '\\r'
          : c === '\t'
            ? '\\t'
            : c < ' ' || c === '\x7f'
              ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`
              : c,
    )
    .join('');
  return escaped.length > MAX_MESSAGE ? `${escaped.slice(0, MAX_MESSAGE - 3)}...` : escaped;
}

/** The AdmissionReview v1 answer to `uid` (uid echoed, status only on a denial). */
export function admissionResponse(uid: string, v: AdmissionVerdict): Record<string, unknown> {
  const response: Record<string, unknown> = { uid, allowed: v.allowed };
  if (!v.allowed) {
    response['status'] = {
      ...(v.message === undefined ? {} : { message: oneLine(v.message) }),
      code: v.code ?? 400,
      reason: 'BadRequest',
    };
  }
  if (v.warnings?.length) response['warnings'] = v.warnings.map(oneLine);
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

/**
 * The AdmissionReview v1 body an API server POSTs for an Ingress (for tests and benches that
 * talk to the webhook directly): namespace and name from the object, `dryRun` false.
 */
export function ingressAdmissionReview(
  uid: string,
  operation: AdmissionReviewInput['operation'],
  object: { readonly metadata: { readonly name?: string; readonly namespace?: string } },
  oldObject: object | null = null,
): { apiVersion: string; kind: string; request: Record<string, unknown> } {
  return admissionReviewBody({
    uid,
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    resource: 'ingresses',
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    operation,
    userInfo: { username: 'kubernetes-admin' },
    object,
    oldObject,
    dryRun: false,
  });
}

/** What the request was about: a HAProxyTemplateConfig, or a watched (or unknown) resource. */
export type ReviewKind = 'config' | 'resource';

/** One review's outcome: the verdict, and how it was reached (for metrics and logs). */
export interface Review {
  readonly kind: ReviewKind;
  /** `skipped`: allowed without a dry run (another class, not watched, no config yet). */
  readonly result: 'allowed' | 'denied' | 'skipped';
  readonly verdict: AdmissionVerdict;
  /** Whether the dry run ran `haproxy -c` (false: only runtime-applicable parts changed). */
  readonly haproxyCheck?: boolean;
}
