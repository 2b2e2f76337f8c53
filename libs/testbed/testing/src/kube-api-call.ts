/** One answer of a Kubernetes-style API, read loosely as JSON. */
export interface ApiAnswer {
  readonly code: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read API JSON loosely
  readonly body: any;
  readonly headers: Headers;
  /** The `Warning` header (fieldValidation=Warn, admission warnings), or null. */
  readonly warning: string | null;
}

/** Sends one JSON request to an API server (kube-sim in tests) and returns status, body and headers. */
export async function apiCall(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  accept?: string,
): Promise<ApiAnswer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = contentType;
  if (accept) headers['accept'] = accept;
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    code: res.status,
    body: text ? (JSON.parse(text) as unknown) : undefined,
    headers: res.headers,
    warning: res.headers.get('warning'),
  };
}
