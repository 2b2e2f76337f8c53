import { Module } from '@nestjs/common';
import { ReconcileListener } from './reconcile.listener.js';

/** ReconcileModule: turns watch events into paced `reconcile.triggered` facts. Needs BusModule. */
@Module({ providers: [ReconcileListener] })
export class ReconcileModule {}
