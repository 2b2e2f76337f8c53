export { ReconcileModule } from './reconcile.module.js';
export { ReconcileListener, RECONCILE_CLOCK } from './reconcile.listener.js';
