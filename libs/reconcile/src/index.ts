export { ReconcileModule } from './reconcile.module.js';
export { ReconcileListener, RECONCILE_CLOCK } from './reconcile.listener.js';
export { ReconcileOutcomeLog, type ReconcileOutcome } from './reconcile.outcome-log.js';
