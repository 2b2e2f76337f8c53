import {
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { ServiceWrite } from './lib/gateway/service-writes.js';
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
  /** Creates, merge-patches or deletes one Gateway's Service (Service-per-Gateway mode). */
  writeService(write: ServiceWrite): Promise<void>;
}

/** GatewayStatusApi over @kubernetes/client-node (JSON merge patches on /status). */
export class KubeGatewayStatusApi implements GatewayStatusApi {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async writeService(write: ServiceWrite): Promise<void> {
    if (write.op === 'delete') {
      await this.core.deleteNamespacedService({ namespace: write.namespace, name: write.name });
      return;
    }
    const { metadata, spec } = write.service;
    const body = { apiVersion: 'v1', kind: 'Service', metadata, spec };
    if (write.op === 'create') {
      await this.core.createNamespacedService({ namespace: metadata.namespace, body });
      return;
    }
    const selector: Record<string, string | null> = { ...spec.selector };
    for (const k of write.staleSelector) selector[k] = null;
    await this.core.patchNamespacedService(
      {
        namespace: metadata.namespace,
        name: metadata.name,
        body: { metadata, spec: { ...spec, selector } },
      },
      MERGE,
    );
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
