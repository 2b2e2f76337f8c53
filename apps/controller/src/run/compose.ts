import {
  Global,
  Inject,
  Injectable,
  Module,
  type DynamicModule,
  type OnModuleInit,
} from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { EVENT_BUS } from '#bus';
import type { HapticBus } from '#events';
import { DataplaneModule } from '#dataplane';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { IndexModule, ResourceIndex } from '#index';
import { ReconcileModule } from '#reconcile';
import { RENDER_SNAPSHOT_SOURCE, RenderModule, type RenderSnapshotSource } from '#render';
import { ValidationModule } from '#validation';
import { WatchModule } from '#watch';
import { startController, type RunningController } from './controller-app.js';
import type { RunOptions } from './run-options.js';

/**
 * Stand-in for leader election until LeaderModule lands: this replica leads (run one replica).
 * It is the only place that sets leader.status.
 */
@Injectable()
class SoleLeader implements OnModuleInit {
  constructor(@Inject(EVENT_BUS) private readonly bus: HapticBus) {}
  onModuleInit(): void {
    this.bus.setState('leader.status', { isLeader: true, identity: 'sole-replica' });
  }
}

/** Glue between modules that must not know each other: render reads the index's snapshots. */
@Global()
@Module({
  providers: [
    SoleLeader,
    {
      provide: RENDER_SNAPSHOT_SOURCE,
      inject: [ResourceIndex],
      useFactory: (index: ResourceIndex): RenderSnapshotSource => ({
        snapshot: () => index.snapshot(),
      }),
    },
  ],
  exports: [RENDER_SNAPSHOT_SOURCE],
})
class GlueModule {}

function kubeConfig(options: RunOptions): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  return kc;
}

/** The feature modules of `haptic run`, in the order their data flows. */
export function controllerFeatures(options: RunOptions): DynamicModule['imports'] {
  return [
    IndexModule.forRoot(),
    WatchModule.forRoot({
      kubeConfig: kubeConfig(options),
      config: { namespace: options.namespace, name: options.configName },
    }),
    ReconcileModule,
    GlueModule,
    RenderModule.forRoot(),
    ValidationModule.forRoot({ haproxyBin: resolveHaproxyBinary(options.haproxyBin) }),
    DataplaneModule.forRoot({ identity: options.identity }),
  ];
}

/** Starts the whole controller process. */
export async function runController(options: RunOptions): Promise<RunningController> {
  return startController(options, controllerFeatures(options));
}
