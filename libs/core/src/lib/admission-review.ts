// The AdmissionReview v1 request body, built here once: the webhook's tests and benches send it,
// and kube-sim sends it to webhooks as an API server does (the test-bed may not be imported by
// the product, and kube-sim may not import a feature lib: the shared kernel is where both meet).

/** What an API server puts into one AdmissionReview v1 request. */
export interface AdmissionReviewInput {
  readonly uid: string;
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The resource's plural name (e.g. `ingresses`). */
  readonly resource: string;
  readonly subResource?: string | undefined;
  readonly name?: string | undefined;
  readonly namespace?: string | undefined;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly userInfo: { readonly username: string; readonly groups?: readonly string[] };
  readonly object: object | null;
  readonly oldObject: object | null;
  readonly dryRun: boolean;
}

/** The AdmissionReview v1 request body an API server POSTs to a validating webhook. */
export function admissionReviewBody(i: AdmissionReviewInput): {
  apiVersion: string;
  kind: string;
  request: Record<string, unknown>;
} {
  const kind = { group: i.group, version: i.version, kind: i.kind };
  const resource = { group: i.group, version: i.version, resource: i.resource };
  const optionsKind = {
    CREATE: 'CreateOptions',
    UPDATE: 'UpdateOptions',
    DELETE: 'DeleteOptions',
  }[i.operation];
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: i.uid,
      kind,
      resource,
      requestKind: kind,
      requestResource: resource,
      ...(i.subResource ? { subResource: i.subResource, requestSubResource: i.subResource } : {}),
      name: i.name,
      ...(i.namespace ? { namespace: i.namespace } : {}),
      operation: i.operation,
      userInfo: i.userInfo,
      object: i.object,
      oldObject: i.oldObject,
      dryRun: i.dryRun,
      options: { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' },
    },
  };
}
