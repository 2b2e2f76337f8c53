import { Global, Module, type DynamicModule } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { DataplaneModule } from '#dataplane';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { IndexModule, ResourceIndex } from '#index';
import { LeaderModule } from '#leader';
import { ReconcileModule } from '#reconcile';
import { RENDER_SNAPSHOT_SOURCE, RenderModule, type RenderSnapshotSource } from '#render';
import { StatusModule } from '#status';
import { ValidationModule } from '#validation';
import { WatchModule } from '#watch';
import { startController, type RunningController } from './controller-app.js';
import { ingressStatusSourceProvider } from './ingress-status-source.js';
import type { RunOptions } from './run-options.js';

/** Glue between modules that must not know each other: render reads the index's snapshots. */
@Global()
@Module({
  providers: [
    {
      provide: RENDER_SNAPSHOT_SOURCE,
      inject: [ResourceIndex],
      useFactory: (index: ResourceIndex): RenderSnapshotSource => ({
        snapshot: () => index.snapshot(),
      }),
    },
    ingressStatusSourceProvider,
  ],
  exports: [RENDER_SNAPSHOT_SOURCE, ingressStatusSourceProvider.provide],
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
  const kc = kubeConfig(options);
  return [
    IndexModule.forRoot(),
    WatchModule.forRoot({
      kubeConfig: kc,
      config: { namespace: options.namespace, name: options.configName },
    }),
    // every replica campaigns; render, validation and deploy run only on the leader
    LeaderModule.forRoot({
      kubeConfig: kc,
      identity: options.identity,
      namespace: options.namespace,
      defaultLeaseName: options.configName,
    }),
    ReconcileModule,
    GlueModule,
    RenderModule.forRoot(),
    ValidationModule.forRoot({ haproxyBin: resolveHaproxyBinary(options.haproxyBin) }),
    DataplaneModule.forRoot({ identity: options.identity }),
    // leader-only: config conditions, Ingress status.loadBalancer, Kubernetes Events
    StatusModule.forRoot({
      kubeConfig: kc,
      identity: options.identity,
      config: { namespace: options.namespace, name: options.configName },
    }),
  ];
}

/** Starts the whole controller process. */
export async function runController(options: RunOptions): Promise<RunningController> {
  return startController(options, controllerFeatures(options));
}
