import { HapticError } from '#core';

/** The echo server's flags or environment are invalid (a port that is not a number, half a TLS pair). */
export class EchoConfigError extends HapticError {
  readonly code = 'HAPTIC_ECHO_CONFIG_INVALID';
}

/** The echo server could not start (address in use, unreadable certificate, proto not found). */
export class EchoStartError extends HapticError {
  readonly code = 'HAPTIC_ECHO_START_FAILED';
}
