import { Module, type DynamicModule } from '@nestjs/common';
import type { KubeConfig } from '@kubernetes/client-node';
import { EventRecorder } from './event-recorder.js';
import { KubeStatusApi, type StatusApi } from './status-api.js';
import { StatusRecorderListener } from './status.events.js';
import { statusMetrics } from './status.metrics.js';
import { STATUS_API, STATUS_OPTIONS, type StatusModuleOptions } from './status.tokens.js';
import { StatusTracker } from './status.tracker.js';
import { StatusWriter } from './status.writer.js';

export interface StatusModuleConfig extends StatusModuleOptions {
  /** The API written to; or `api` (tests). */
  readonly kubeConfig?: KubeConfig;
  readonly api?: StatusApi;
}

/**
 * StatusModule: HAProxyTemplateConfig conditions, Ingress status.loadBalancer and Kubernetes
 * Events, written by the leader only (StatusWriter is a LeaderElectionRunnable). Needs the
 * global BusModule, the INGRESS_STATUS_SOURCE port and the metrics registry.
 */
@Module({})
export class StatusModule {
  static forRoot(config: StatusModuleConfig): DynamicModule {
    const { kubeConfig, api, ...options } = config;
    const statusApi =
      api ??
      (kubeConfig
        ? new KubeStatusApi(kubeConfig)
        : (() => {
            throw new Error('StatusModule needs a kubeConfig or an api');
          })());
    return {
      module: StatusModule,
      providers: [
        { provide: STATUS_OPTIONS, useValue: options },
        { provide: STATUS_API, useValue: statusApi },
        StatusTracker,
        EventRecorder,
        StatusRecorderListener,
        StatusWriter,
        ...statusMetrics,
      ],
      exports: [StatusWriter],
    };
  }
}
