import { HapticError } from '#core';

/** kube-sim could not start (port in use, TLS material not generated, a manifest refused). */
export class KubeSimStartError extends HapticError {
  readonly code = 'HAPTIC_KUBE_SIM_START';
}

/** A manifest given to kube-sim could not be applied; carries the server's Status message. */
export class KubeSimApplyError extends HapticError {
  readonly code = 'HAPTIC_KUBE_SIM_APPLY';
}
