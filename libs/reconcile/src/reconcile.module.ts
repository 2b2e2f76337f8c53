import { Module } from '@nestjs/common';
import { ReconcileListener } from './reconcile.listener.js';
import { reconcileMetrics } from './reconcile.metrics.js';
import { ReconcileOutcomeLog } from './reconcile.outcome-log.js';

/**
 * ReconcileModule: turns watch events into paced `reconcile.triggered` facts, and logs one line
 * per outcome with its correlation id. Needs BusModule.
 */
@Module({ providers: [ReconcileListener, ReconcileOutcomeLog, ...reconcileMetrics] })
export class ReconcileModule {}
