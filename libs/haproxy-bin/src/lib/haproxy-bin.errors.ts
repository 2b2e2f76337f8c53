import { HapticError } from '#core';

/** No usable HAProxy binary where the flag, the environment or the defaults point. */
export class HaproxyBinaryNotFoundError extends HapticError {
  readonly code = 'HAPTIC_HAPROXY_BIN_NOT_FOUND';
}

/** The binary ran but `haproxy -v` did not print a version haptic understands. */
export class HaproxyVersionUnreadableError extends HapticError {
  readonly code = 'HAPTIC_HAPROXY_VERSION_UNREADABLE';
}
