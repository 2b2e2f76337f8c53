import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { StatusKind } from './lib/gateway/status-writes.js';

const GROUP = 'gateway.networking.k8s.io';
const VERSION = 'v1';
const PLURALS: Record<StatusKind, string> = {
  GatewayClass: 'gatewayclasses',
  Gateway: 'gateways',
  HTTPRoute: 'httproutes',
  GRPCRoute: 'grpcroutes',
};
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** Port: writes the status subresource of one Gateway API object. */
export interface GatewayStatusApi {
  patchStatus(
    kind: StatusKind,
    namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void>;
}

/** GatewayStatusApi over @kubernetes/client-node (JSON merge patches on /status). */
export class KubeGatewayStatusApi implements GatewayStatusApi {
  private readonly custom: CustomObjectsApi;

  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
  }

  async patchStatus(
    kind: StatusKind,
    namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void> {
    const plural = PLURALS[kind];
    const body = { status };
    if (kind === 'GatewayClass')
      await this.custom.patchClusterCustomObjectStatus(
        { group: GROUP, version: VERSION, plural, name, body },
        MERGE,
      );
    else
      await this.custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, namespace, plural, name, body },
        MERGE,
      );
  }
}
