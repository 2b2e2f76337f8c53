import { Module, type DynamicModule } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import type { KubeConfig } from '@kubernetes/client-node';
import { EventRecorder } from './event-recorder.js';
import { KubeGatewayStatusApi, type GatewayStatusApi } from './gateway-status-api.js';
import { GatewayStatusWriter } from './gateway-status.writer.js';
import { KubeStatusApi, type StatusApi } from './status-api.js';
import { StatusRecorderListener } from './status.events.js';
import { statusMetrics } from './status.metrics.js';
import {
  GATEWAY_STATUS_API,
  STATUS_API,
  STATUS_OPTIONS,
  type StatusModuleOptions,
} from './status.tokens.js';
import { StatusTracker } from './status.tracker.js';
import { StatusWriter } from './status.writer.js';

export interface StatusModuleConfig extends StatusModuleOptions {
  /** The API written to; or `api` (tests). */
  readonly kubeConfig?: KubeConfig;
  readonly api?: StatusApi;
  /** Where Gateway API status is written (tests); from `kubeConfig` otherwise. */
  readonly gatewayApi?: GatewayStatusApi;
}

/**
 * StatusModule: HAProxyTemplateConfig conditions, Ingress status.loadBalancer and Kubernetes
 * Events, written by the leader only (StatusWriter is a LeaderElectionRunnable). Needs the
 * global BusModule, the INGRESS_STATUS_SOURCE and GATEWAY_STATUS_SOURCE ports and the metrics
 * registry. GatewayStatusWriter writes GatewayClass, Gateway and route status (leader only).
 */
@Module({})
export class StatusModule {
  static forRoot(config: StatusModuleConfig): DynamicModule {
    const { kubeConfig, api, gatewayApi, ...options } = config;
    const statusApi =
      api ??
      (kubeConfig
        ? new KubeStatusApi(kubeConfig)
        : (() => {
            throw new Error('StatusModule needs a kubeConfig or an api');
          })());
    const gatewayStatusApi: GatewayStatusApi =
      gatewayApi ??
      (kubeConfig
        ? new KubeGatewayStatusApi(kubeConfig)
        : {
            patchStatus: () =>
              Promise.reject(new Error('StatusModule has no kubeConfig for Gateway API status')),
            writeService: () =>
              Promise.reject(new Error('StatusModule has no kubeConfig for Gateway Services')),
          });
    return {
      module: StatusModule,
      imports: [ScheduleModule.forRoot()],
      providers: [
        { provide: STATUS_OPTIONS, useValue: options },
        { provide: STATUS_API, useValue: statusApi },
        { provide: GATEWAY_STATUS_API, useValue: gatewayStatusApi },
        StatusTracker,
        EventRecorder,
        StatusRecorderListener,
        StatusWriter,
        GatewayStatusWriter,
        ...statusMetrics,
      ],
      exports: [StatusWriter, GatewayStatusWriter],
    };
  }
}
