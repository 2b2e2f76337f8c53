import { HapticError } from '#core';

/** HAProxy could not be started, adopted or reloaded. */
export class HaproxyProcessError extends HapticError {
  readonly code = 'HAPTIC_AGENT_HAPROXY';
}

/** Credentials could not be loaded (unreadable file, unsupported hashed password). */
export class AgentCredentialsError extends HapticError {
  readonly code = 'HAPTIC_AGENT_CREDENTIALS';
}

/**
 * An error with the HTTP status and message the Dataplane API would answer; only the API layer
 * turns it into a response (`{"code": status, "message": ...}`).
 */
export class ApiError extends HapticError {
  readonly code = 'HAPTIC_AGENT_API';
  constructor(
    readonly status: number,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }
}
