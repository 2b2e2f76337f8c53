import { HapticError } from '#core';

/** A value cannot be sent on the HAProxy runtime CLI (newline, NUL, empty, too long). */
export class CliArgumentError extends HapticError {
  readonly code = 'HAPTIC_CLI_ARGUMENT';
}

/** The runtime socket could not be reached or timed out. Retryable. */
export class RuntimeSocketError extends HapticError {
  readonly code = 'HAPTIC_RUNTIME_SOCKET';
  constructor(
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown> } = {},
  ) {
    super(message, { ...options, retryable: true });
  }
}

/** HAProxy answered a runtime command with an error text (or with nothing at all). */
export class RuntimeCommandError extends HapticError {
  readonly code = 'HAPTIC_RUNTIME_COMMAND';
  constructor(
    readonly command: string,
    readonly reply: string,
  ) {
    super(
      reply === ''
        ? `runtime command "${command}" got an empty reply (message too large or rejected)`
        : `runtime command "${command}" failed: ${reply.trim()}`,
      { details: { command, reply } },
    );
  }
}
