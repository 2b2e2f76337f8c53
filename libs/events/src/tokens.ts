/**
 * DI tokens shared between modules. The app provides them; feature modules inject them.
 * METRICS_REGISTRY: the prom-client Registry of this process (each module registers its own metrics).
 */
export const METRICS_REGISTRY = Symbol.for('haptic.MetricsRegistry');
/** IngressStatusSource: the served Ingresses, for the status writer. */
export const INGRESS_STATUS_SOURCE = Symbol.for('haptic.IngressStatusSource');
