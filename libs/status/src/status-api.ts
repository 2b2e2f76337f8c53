import { JSON_MERGE_PATCH, kubeRequest, kubeStatusIs, seg, type KubeCredentials } from '#core';
import type { LoadBalancerIngress, NodeAddresses, PublishedService } from './lib/addresses.js';
import type { Condition } from './lib/conditions.js';
import type { EventWrite } from './lib/event-aggregator.js';

const GROUP = 'haproxy-haptic.org';
const VERSION = 'v1alpha1';
const PLURAL = 'haproxytemplateconfigs';
/** The HAProxyTemplateConfig's path (its /status subresource below it). */
export function configPath(namespace: string, name: string): string {
  return `/apis/${GROUP}/${VERSION}/namespaces/${seg(namespace)}/${PLURAL}/${seg(name)}`;
}

/** The status the leader writes on the HAProxyTemplateConfig. */
export interface ConfigStatusBody {
  readonly observedGeneration: number;
  readonly conditions: readonly Condition[];
  readonly lastRenderHash: string;
  readonly pods: readonly object[];
}

/** What the writer reads back of the HAProxyTemplateConfig. */
export interface StoredConfig {
  readonly uid: string;
  readonly conditions: readonly Condition[];
}

/** Port: the Kubernetes writes and reads of the status writer (tests use a fake). */
export interface StatusApi {
  /** The config's uid and stored conditions (undefined when it does not exist). */
  readConfig(namespace: string, name: string): Promise<StoredConfig | undefined>;
  patchConfigStatus(namespace: string, name: string, status: ConfigStatusBody): Promise<void>;
  patchIngressStatus(
    namespace: string,
    name: string,
    entries: readonly LoadBalancerIngress[],
  ): Promise<void>;
  readService(namespace: string, name: string): Promise<PublishedService | undefined>;
  listNodes(): Promise<readonly NodeAddresses[]>;
  writeEvent(write: EventWrite, reporter: { component: string; instance: string }): Promise<void>;
}

const notFound = (e: unknown) => kubeStatusIs(e, 404);

/**
 * StatusApi over the Kubernetes API with a client-node KubeConfig's credentials (merge patches on
 * the /status subresources).
 */
export class KubeStatusApi implements StatusApi {
  constructor(private readonly kc: KubeCredentials) {}

  private patch(path: string, body: unknown): Promise<unknown> {
    return kubeRequest(this.kc, { method: 'PATCH', path, body, contentType: JSON_MERGE_PATCH });
  }

  async readConfig(namespace: string, name: string): Promise<StoredConfig | undefined> {
    try {
      const o = await kubeRequest<{
        metadata?: { uid?: string };
        status?: { conditions?: Condition[] };
      }>(this.kc, { method: 'GET', path: `${configPath(namespace, name)}/status` });
      return { uid: o.metadata?.uid ?? '', conditions: o.status?.conditions ?? [] };
    } catch (e) {
      if (notFound(e)) return undefined;
      throw e;
    }
  }

  async patchConfigStatus(
    namespace: string,
    name: string,
    status: ConfigStatusBody,
  ): Promise<void> {
    await this.patch(`${configPath(namespace, name)}/status`, { status });
  }

  async patchIngressStatus(
    namespace: string,
    name: string,
    entries: readonly LoadBalancerIngress[],
  ): Promise<void> {
    const loadBalancer = entries.length > 0 ? { ingress: entries } : { ingress: null };
    await this.patch(
      `/apis/networking.k8s.io/v1/namespaces/${seg(namespace)}/ingresses/${seg(name)}/status`,
      { status: { loadBalancer } },
    );
  }

  async readService(namespace: string, name: string): Promise<PublishedService | undefined> {
    try {
      return await kubeRequest<PublishedService>(this.kc, {
        method: 'GET',
        path: `/api/v1/namespaces/${seg(namespace)}/services/${seg(name)}`,
      });
    } catch (e) {
      if (notFound(e)) return undefined;
      throw e;
    }
  }

  async listNodes(): Promise<readonly NodeAddresses[]> {
    return (
      (
        await kubeRequest<{ items?: NodeAddresses[] }>(this.kc, {
          method: 'GET',
          path: '/api/v1/nodes',
        })
      ).items ?? []
    );
  }

  async writeEvent(
    w: EventWrite,
    reporter: { component: string; instance: string },
  ): Promise<void> {
    const events = `/api/v1/namespaces/${seg(w.namespace)}/events`;
    if (w.op === 'update') {
      await this.patch(`${events}/${seg(w.name)}`, {
        count: w.count,
        lastTimestamp: w.time,
      });
      return;
    }
    const { involved, type, reason, message } = w.record;
    await kubeRequest(this.kc, {
      method: 'POST',
      path: events,
      body: {
        metadata: { name: w.name, namespace: w.namespace },
        involvedObject: { ...involved },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: new Date(w.time).toISOString(),
        lastTimestamp: new Date(w.time).toISOString(),
        source: { component: reporter.component },
        reportingComponent: reporter.component,
        reportingInstance: reporter.instance,
        action: reason,
      },
    });
  }
}
