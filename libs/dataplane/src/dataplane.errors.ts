import { HapticError, type HapticErrorOptions } from '#core';

/** The Dataplane API answered with an error (`{"code","message"}`), or could not be reached. */
export class DataplaneRequestError extends HapticError {
  readonly code = 'HAPTIC_DATAPLANE_REQUEST_FAILED';
  constructor(
    message: string,
    readonly status: number | undefined,
    options: HapticErrorOptions = {},
  ) {
    // 5xx, 429 and network errors may succeed later; 4xx will not.
    super(message, {
      retryable: status === undefined || status >= 500 || status === 429,
      ...options,
    });
  }
}

/** Our version was outdated: someone else changed the configuration first (409 version mismatch). */
export class DataplaneVersionConflictError extends HapticError {
  readonly code = 'HAPTIC_DATAPLANE_VERSION_CONFLICT';
  constructor(message: string, options: HapticErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/** HAProxy refused the configuration (400 on push) or the reload failed. */
export class DataplaneConfigRejectedError extends HapticError {
  readonly code = 'HAPTIC_DATAPLANE_CONFIG_REJECTED';
}
