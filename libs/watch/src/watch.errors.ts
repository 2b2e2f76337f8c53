import { HapticError } from '#core';

/** The API server answered with an error status (a Kubernetes `Status`). */
export class KubeApiError extends HapticError {
  readonly code = 'HAPTIC_KUBE_API';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly path: string,
    /** Retry-After of a 429, in seconds (0 when absent). */
    readonly retryAfterSeconds = 0,
  ) {
    super(`${message} (HTTP ${status} ${reason} on ${path})`, {
      retryable: ![400, 401, 403, 404].includes(status),
      details: { status, reason, path },
    });
  }
}

/** The resourceVersion to resume from is too old (410 Gone): list again. */
export class ResourceVersionExpiredError extends HapticError {
  readonly code = 'HAPTIC_WATCH_EXPIRED';
  constructor(path: string) {
    super(`resourceVersion expired on ${path}; re-listing`, { retryable: true, details: { path } });
  }
}

/** A watch stream sent nothing for too long; it is restarted from the last resourceVersion. */
export class SilentStreamError extends HapticError {
  readonly code = 'HAPTIC_WATCH_SILENT';
  constructor(path: string, idleMs: number) {
    super(`watch on ${path} was silent for ${idleMs} ms; restarting`, {
      retryable: true,
      details: { path, idleMs },
    });
  }
}

/** A request did not finish in time or the connection failed. */
export class KubeTransportError extends HapticError {
  readonly code = 'HAPTIC_KUBE_TRANSPORT';
  constructor(path: string, cause: unknown) {
    super(`request to ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      retryable: true,
      details: { path },
    });
  }
}

/** A watched resource name that watch is not running. */
export class UnknownWatchedResourceError extends HapticError {
  readonly code = 'HAPTIC_WATCH_UNKNOWN_RESOURCE';
  constructor(resource: string) {
    super(`"${resource}" is not a watched resource`, { details: { resource } });
  }
}
