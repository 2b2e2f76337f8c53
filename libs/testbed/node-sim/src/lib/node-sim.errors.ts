import { HapticError } from '#core';

/** node-sim's options are invalid (missing kubeconfig, a bad address range, an unreadable image table). */
export class NodeSimConfigError extends HapticError {
  readonly code = 'HAPTIC_NODE_SIM_CONFIG_INVALID';
}

/** The loopback address range is used up: no address left for a new pod. Retryable once pods go. */
export class AddressPoolExhaustedError extends HapticError {
  readonly code = 'HAPTIC_NODE_SIM_ADDRESSES_EXHAUSTED';
  constructor(message: string) {
    super(message, { retryable: true });
  }
}

/** A pod uses something node-sim cannot play (an image with no runner, an unsupported volume). */
export class PodUnsupportedError extends HapticError {
  readonly code = 'HAPTIC_NODE_SIM_POD_UNSUPPORTED';
}
