import { JSON_MERGE_PATCH, kubeRequest, seg, type KubeCredentials } from '#core';
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

/**
 * GatewayStatusApi over the Kubernetes API with a client-node KubeConfig's credentials (JSON merge
 * patches on /status).
 */
export class KubeGatewayStatusApi implements GatewayStatusApi {
  constructor(private readonly kc: KubeCredentials) {}

  async writeService(write: ServiceWrite): Promise<void> {
    const services = (namespace: string) => `/api/v1/namespaces/${seg(namespace)}/services`;
    if (write.op === 'delete') {
      await kubeRequest(this.kc, {
        method: 'DELETE',
        path: `${services(write.namespace)}/${seg(write.name)}`,
      });
      return;
    }
    const { metadata, spec } = write.service;
    const body = { apiVersion: 'v1', kind: 'Service', metadata, spec };
    if (write.op === 'create') {
      await kubeRequest(this.kc, { method: 'POST', path: services(metadata.namespace), body });
      return;
    }
    const selector: Record<string, string | null> = { ...spec.selector };
    for (const k of write.staleSelector) selector[k] = null;
    await kubeRequest(this.kc, {
      method: 'PATCH',
      path: `${services(metadata.namespace)}/${seg(metadata.name)}`,
      body: { metadata, spec: { ...spec, selector } },
      contentType: JSON_MERGE_PATCH,
    });
  }

  async patchStatus(
    kind: StatusKind,
    namespace: string,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void> {
    const plural = PLURALS[kind];
    const scope = kind === 'GatewayClass' ? '' : `/namespaces/${seg(namespace)}`;
    await kubeRequest(this.kc, {
      method: 'PATCH',
      path: `/apis/${GROUP}/${VERSION}${scope}/${plural}/${seg(name)}/status`,
      body: { status },
      contentType: JSON_MERGE_PATCH,
    });
  }
}
