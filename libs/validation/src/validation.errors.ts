import { HapticError, type HapticErrorOptions } from '#core';
import { formatProblem, type ValidationProblem } from './lib/problems.js';

/** A render failed validation (structure, a refused directive, or `haproxy -c`). */
export class ConfigRejectedError extends HapticError {
  readonly code = 'HAPTIC_CONFIG_REJECTED';
  constructor(
    readonly problems: readonly ValidationProblem[],
    options: HapticErrorOptions = {},
  ) {
    super(`rendered configuration is invalid: ${problems.map(formatProblem).join('; ')}`, {
      ...options,
      details: { problems },
    });
  }
}

/** No HAProxy binary could be found to run `haproxy -c`. */
export class CheckerUnavailableError extends HapticError {
  readonly code = 'HAPTIC_CHECKER_UNAVAILABLE';
}

/** `--test NAME` names no embedded validation test. */
export class UnknownValidationTestError extends HapticError {
  readonly code = 'HAPTIC_UNKNOWN_VALIDATION_TEST';
}
