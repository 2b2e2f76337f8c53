import { HapticError } from '#core';

/** An indexBy path is not in the field-path dialect (configuration validation should catch it first). */
export class InvalidIndexPathError extends HapticError {
  readonly code = 'HAPTIC_INDEX_INVALID_PATH';
  constructor(readonly path: string) {
    super(`indexBy path "${path}" is not a valid field path`, { details: { path } });
  }
}

/** A snapshot was asked for a watched resource it does not hold. */
export class UnknownResourceError extends HapticError {
  readonly code = 'HAPTIC_INDEX_UNKNOWN_RESOURCE';
  constructor(readonly resource: string) {
    super(`"${resource}" is not a watched resource`, { details: { resource } });
  }
}

/** A look-up gave more keys than the resource's indexBy has paths. */
export class TooManyKeysError extends HapticError {
  readonly code = 'HAPTIC_INDEX_TOO_MANY_KEYS';
  constructor(resource: string, given: number, max: number) {
    super(`"${resource}" is indexed by ${max} key(s); ${given} given`, {
      details: { resource, given, max },
    });
  }
}

/** Fetching an object of an on-demand store failed; the render cannot be pinned. Retryable. */
export class OnDemandFetchError extends HapticError {
  readonly code = 'HAPTIC_INDEX_FETCH_FAILED';
  constructor(resource: string, ref: string, cause: unknown) {
    super(`fetching ${resource} ${ref} failed`, {
      cause,
      retryable: true,
      details: { resource, ref },
    });
  }
}
