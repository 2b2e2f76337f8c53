import { Module } from '@nestjs/common';
import { ReconcileListener } from './reconcile.listener.js';
import { reconcileMetrics } from './reconcile.metrics.js';

/** ReconcileModule: turns watch events into paced `reconcile.triggered` facts. Needs BusModule. */
@Module({ providers: [ReconcileListener, ...reconcileMetrics] })
export class ReconcileModule {}
