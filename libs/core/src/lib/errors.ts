/** Safe, serialisable details attached to a haptic error (never secrets). */
export type ErrorDetails = Readonly<Record<string, unknown>>;

export interface HapticErrorOptions {
  readonly cause?: unknown;
  readonly details?: ErrorDetails;
  readonly retryable?: boolean;
}

/**
 * Base class of every error haptic raises on purpose. `code` is stable (documented, safe to match
 * on in scripts and alerts); `retryable` says whether trying again may succeed.
 */
export abstract class HapticError extends Error {
  abstract readonly code: string;
  readonly details: ErrorDetails;
  readonly retryable: boolean;

  constructor(message: string, options: HapticErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }

  /** A plain object for logs and JSON output: code, message, details (no stack). */
  toJSON(): { code: string; message: string; details: ErrorDetails } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** One problem in user input, located by a field path such as `spec.watchedResources.x.indexBy[0]`. */
export interface FieldProblem {
  readonly path: string;
  readonly reason: string;
}

/** User configuration is invalid; carries every problem found, not just the first. */
export class ConfigInvalidError extends HapticError {
  readonly code = 'HAPTIC_CONFIG_INVALID';
  constructor(
    readonly problems: readonly FieldProblem[],
    options: HapticErrorOptions = {},
  ) {
    super(
      `configuration is invalid (${problems.length} problem${problems.length === 1 ? '' : 's'}): ` +
        problems.map((p) => `${p.path}: ${p.reason}`).join('; '),
      { ...options, details: { problems } },
    );
  }
}

/** Input could not be read or parsed at all (not YAML/JSON, wrong kind, unreadable file). */
export class InputUnreadableError extends HapticError {
  readonly code = 'HAPTIC_INPUT_UNREADABLE';
}

/** An operation did not finish in its allotted time. Retryable. */
export class TimeoutError extends HapticError {
  readonly code = 'HAPTIC_TIMEOUT';
  constructor(message: string, options: HapticErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/** A precondition failed because someone else changed the thing first (optimistic locking). */
export class ConflictError extends HapticError {
  readonly code = 'HAPTIC_CONFLICT';
  constructor(message: string, options: HapticErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/** True when `e` is a haptic error (of any subclass). */
export function isHapticError(e: unknown): e is HapticError {
  return e instanceof HapticError;
}
