import { Global, Module, type DynamicModule } from '@nestjs/common';
import { KubeConfig } from '@kubernetes/client-node';
import { join } from 'node:path';
import { DataplaneModule } from '#dataplane';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { IndexModule, ResourceIndex } from '#index';
import { LeaderModule } from '#leader';
import { ReconcileModule } from '#reconcile';
import {
  RENDER_SNAPSHOT_SOURCE,
  RenderModule,
  RenderService,
  type RenderSnapshotSource,
} from '#render';
import { ValidationModule, ValidationService } from '#validation';
import { WatchModule } from '#watch';
import { WebhookModule, type WebhookOptions } from '#webhook';
import { AdmissionDryRun } from './admission-dry-run.js';
import { startController, type RunningController } from './controller-app.js';
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

/** The admission endpoint's settings from the run options (served only with a certificate). */
function webhookOptions(options: RunOptions): WebhookOptions {
  const dir = options.webhookCertDir;
  return {
    address: options.address,
    port: options.webhookPort,
    ...(dir
      ? { certificate: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') } }
      : {}),
  };
}

/** The feature modules of `haptic run`, in the order their data flows. */
export function controllerFeatures(options: RunOptions): DynamicModule['imports'] {
  const kc = kubeConfig(options);
  const render = RenderModule.forRoot();
  const validation = ValidationModule.forRoot({
    haproxyBin: resolveHaproxyBinary(options.haproxyBin),
  });
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
    render,
    validation,
    DataplaneModule.forRoot({ identity: options.identity }),
    // every replica answers admission reviews with dry runs over the same render and validation
    WebhookModule.forRoot(webhookOptions(options), {
      imports: [render, validation],
      inject: [ResourceIndex, RenderService, ValidationService],
      useFactory: (i: ResourceIndex, r: RenderService, v: ValidationService) =>
        new AdmissionDryRun(i, r, v),
    }),
  ];
}

/** Starts the whole controller process. */
export async function runController(options: RunOptions): Promise<RunningController> {
  return startController(options, controllerFeatures(options));
}
