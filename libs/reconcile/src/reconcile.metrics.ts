import { makeCounterProvider } from '@willsoto/nestjs-prometheus';

/** `haptic_reconcile_total{result}`: cycles started (`triggered`) and triggers they coalesced. */
export const RECONCILE_TOTAL = {
  name: 'haptic_reconcile_total',
  help: 'Reconcile cycles started, and the triggers they coalesced.',
  labelNames: ['result'],
};

/** The metrics ReconcileModule declares (on the application's registry). */
export const reconcileMetrics = [makeCounterProvider(RECONCILE_TOTAL)];
