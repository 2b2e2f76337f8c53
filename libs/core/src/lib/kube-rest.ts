// JSON requests to the Kubernetes API with the credentials of a client-node KubeConfig, for the
// few writes and reads haptic makes outside its watches (Lease, status subresources, Events,
// Gateway Services). client-node's generated API clients would do the same, but loading any of
// them evaluates every API group's client and model (about 21 MiB of heap and 30 MiB resident at
// start, see docs/operations/performance.md, "client-node"); these requests need none of that.
import * as http from 'node:http';
import * as https from 'node:https';
import { HapticError } from './errors.js';

/**
 * What a request needs of a client-node `KubeConfig` (which satisfies it as is): the current
 * cluster's address, and its TLS settings and credentials (tokens, certificates, exec plug-ins).
 */
export interface KubeCredentials {
  getCurrentCluster(): { readonly server: string } | null;
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

/** The API server answered with an error status (a `Status` body's reason and message). */
export class KubeRestError extends HapticError {
  readonly code = 'HAPTIC_KUBE_REST';

  constructor(
    readonly status: number,
    readonly reason: string,
    readonly detail: string,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path}: HTTP ${status} ${reason}: ${detail}`, {
      details: { status, reason, method, path },
      retryable: status === 429 || status >= 500,
    });
  }
}

/** The request did not get an answer (connection, TLS, timeout, unreadable body). */
export class KubeRestTransportError extends HapticError {
  readonly code = 'HAPTIC_KUBE_REST_TRANSPORT';

  constructor(method: string, path: string, cause: unknown) {
    super(`${method} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      details: { method, path },
      retryable: true,
    });
  }
}

/** True for a KubeRestError with this HTTP status. */
export function kubeStatusIs(e: unknown, status: number): boolean {
  return e instanceof KubeRestError && e.status === status;
}

export const JSON_MERGE_PATCH = 'application/merge-patch+json';

export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The API path, e.g. `/apis/coordination.k8s.io/v1/namespaces/ns/leases/name`. */
  readonly path: string;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** Content type of the body (default application/json; JSON_MERGE_PATCH for patches). */
  readonly contentType?: string;
  /** Until the whole answer has arrived (default 30 s). */
  readonly timeoutMs?: number;
}

/**
 * The reason and message of an API server's error answer: its `Status` body's, else the HTTP
 * reason phrase and the start of the body.
 */
export function kubeStatusOf(status: number, body: string): { reason: string; message: string } {
  let reason = http.STATUS_CODES[status] ?? 'Unknown';
  let message = body.slice(0, 200);
  try {
    const s = JSON.parse(body) as { reason?: string; message?: string };
    reason = s.reason ?? reason;
    message = s.message ?? message;
  } catch {
    // not a Status: the start of the body is the message
  }
  return { reason, message };
}

/** Sends one request and returns its JSON answer; an error status throws KubeRestError. */
export async function kubeRequest<T = unknown>(kc: KubeCredentials, req: KubeRequest): Promise<T> {
  const { method, path } = req;
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new KubeRestTransportError(method, path, 'the kubeconfig names no current cluster');
  const url = new URL(cluster.server.replace(/\/$/, '') + path);
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (payload !== undefined) {
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = Buffer.byteLength(payload);
  }
  const opts: https.RequestOptions = { method, headers };
  await kc.applyToHTTPSOptions(opts);
  const timeoutMs = req.timeoutMs ?? 30_000;
  const { status, text } = await new Promise<{ status: number; text: string }>(
    (resolve, reject) => {
      const mod = url.protocol === 'http:' ? http : https;
      const r = mod.request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (e) => reject(new KubeRestTransportError(method, path, e)));
        res.on('aborted', () =>
          reject(new KubeRestTransportError(method, path, 'response aborted')),
        );
      });
      r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      r.on('error', (e) => reject(new KubeRestTransportError(method, path, e)));
      r.end(payload);
    },
  );
  if (status < 200 || status > 299) {
    const { reason, message } = kubeStatusOf(status, text);
    throw new KubeRestError(status, reason, message, method, path);
  }
  try {
    return (text === '' ? {} : JSON.parse(text)) as T;
  } catch (cause) {
    throw new KubeRestTransportError(method, path, cause);
  }
}

/** A path segment, escaped (names and namespaces are DNS labels, but never trusted). */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
