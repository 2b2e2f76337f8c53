import { Global, Logger, Module, type DynamicModule } from '@nestjs/common';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { join } from 'node:path';
import { DataplaneModule } from '#dataplane';
import { resolveHaproxyBinary } from '#haproxy-bin';
import { IndexModule, ResourceIndex } from '#index';
import { LeaderModule } from '#leader';
import { ReconcileModule } from '#reconcile';
import { RENDER_SNAPSHOT_SOURCE, RenderService, type RenderSnapshotSource } from '#render';
import { StatusModule } from '#status';
import { ValidationModule, ValidationService } from '#validation';
import { ClientNodeKubeApi, WatchModule } from '#watch';
import { WebhookModule, type WebhookOptions } from '#webhook';
import { AdmissionDryRun } from './admission-dry-run.js';
import { startController, type RunningController } from './controller-app.js';
import { checkTemplateConfigCrd } from './crd-check.js';
import { renderModuleWith, type ControllerExtensions } from './extension.js';
import { gatewayStatusSourceProvider } from './gateway-status-source.js';
import { ingressStatusSourceProvider } from './ingress-status-source.js';
import { processKubeConfig } from './kube-config.js';
import type { RunOptions } from './run-options.js';
import { ensureSelfSignedCertificate, type SecretRef } from './self-signed-certificate.js';

/** Glue between modules that must not know each other: render reads the index's snapshots. */
@Global()
@Module({
  providers: [
    {
      provide: RENDER_SNAPSHOT_SOURCE,
      inject: [ResourceIndex],
      useFactory: (index: ResourceIndex): RenderSnapshotSource => ({
        snapshot: () => index.snapshot(),
        pending: () => index.pending(),
      }),
    },
    ingressStatusSourceProvider,
    gatewayStatusSourceProvider,
  ],
  exports: [
    RENDER_SNAPSHOT_SOURCE,
    ingressStatusSourceProvider.provide,
    gatewayStatusSourceProvider.provide,
  ],
})
class GlueModule {}

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
export function controllerFeatures(
  options: RunOptions,
  extensions: ControllerExtensions = {},
  // throws StartupConfigError (exit 2) when there is no kubeconfig and no in-cluster account
  kc: KubeConfig = processKubeConfig(options.kubeconfig),
): DynamicModule['imports'] {
  const render = renderModuleWith(extensions);
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
    // leader-only: config conditions, Ingress status.loadBalancer, Kubernetes Events
    StatusModule.forRoot({
      kubeConfig: kc,
      identity: options.identity,
      config: { namespace: options.namespace, name: options.configName },
    }),
    // every replica answers admission reviews with dry runs over the same render and validation
    WebhookModule.forRoot(webhookOptions(options), {
      imports: [render, validation],
      inject: [ResourceIndex, RenderService, ValidationService],
      useFactory: (i: ResourceIndex, r: RenderService, v: ValidationService) =>
        new AdmissionDryRun(i, r, v),
    }),
  ];
}

/**
 * Starts the whole controller process: haptic's features, then the teams' own modules
 * (`extensions.modules`, e.g. from `haptic run --module`) over the same context and registries.
 */
export async function runController(
  options: RunOptions,
  extensions: ControllerExtensions = {},
): Promise<RunningController> {
  const kc = processKubeConfig(options.kubeconfig);
  // A stale CRD would prune the fields this version reads: refuse now (exit 2) rather than
  // serve a config with silently missing settings. Short timeout: a slow API server is the
  // watch's business (backoff, /readyz), not a reason to delay the start.
  const crd = await checkTemplateConfigCrd(new ClientNodeKubeApi(kc, { requestTimeoutMs: 10_000 }));
  if (options.selfSignedCertificate)
    await keepSelfSignedCertificate(kc, options.selfSignedCertificate);
  const features = controllerFeatures(options, extensions, kc) ?? [];
  const running = await startController(options, [...features, ...(extensions.modules ?? [])]);
  new Logger('CrdCheck').log(`HAProxyTemplateConfig CRD check: ${crd}`);
  return running;
}

/**
 * The self-signed default certificate, kept before the watch starts so the first render sees it.
 * A failure (no RBAC to create Secrets, the API server away) is logged, not fatal: HAProxy then
 * serves 443 only for Ingresses with TLS Secrets, as without the option.
 */
async function keepSelfSignedCertificate(kc: KubeConfig, ref: SecretRef): Promise<void> {
  const log = new Logger('SelfSignedCertificate');
  try {
    log.log(await ensureSelfSignedCertificate(kc, ref));
  } catch (e) {
    log.warn(
      `cannot keep the self-signed default certificate in Secret ${ref.namespace}/${ref.name}: ` +
        `${(e as Error).message}; HTTPS answers only hosts with their own TLS Secret`,
    );
  }
}
