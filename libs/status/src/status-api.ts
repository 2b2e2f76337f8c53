import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  NetworkingV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import type { LoadBalancerIngress, NodeAddresses, PublishedService } from './lib/addresses.js';
import type { Condition } from './lib/conditions.js';
import type { EventWrite } from './lib/event-aggregator.js';

const GROUP = 'haproxy-haptic.org';
const VERSION = 'v1alpha1';
const PLURAL = 'haproxytemplateconfigs';
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

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

const notFound = (e: unknown) => e instanceof ApiException && e.code === 404;

/** StatusApi over @kubernetes/client-node (merge patches on the /status subresources). */
export class KubeStatusApi implements StatusApi {
  private readonly custom: CustomObjectsApi;
  private readonly networking: NetworkingV1Api;
  private readonly core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.custom = kc.makeApiClient(CustomObjectsApi);
    this.networking = kc.makeApiClient(NetworkingV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async readConfig(namespace: string, name: string): Promise<StoredConfig | undefined> {
    try {
      const o = (await this.custom.getNamespacedCustomObjectStatus({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: PLURAL,
        name,
      })) as { metadata?: { uid?: string }; status?: { conditions?: Condition[] } };
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
    await this.custom.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { status } },
      MERGE,
    );
  }

  async patchIngressStatus(
    namespace: string,
    name: string,
    entries: readonly LoadBalancerIngress[],
  ): Promise<void> {
    const loadBalancer = entries.length > 0 ? { ingress: entries } : { ingress: null };
    await this.networking.patchNamespacedIngressStatus(
      { namespace, name, body: { status: { loadBalancer } } },
      MERGE,
    );
  }

  async readService(namespace: string, name: string): Promise<PublishedService | undefined> {
    try {
      return await this.core.readNamespacedService({ namespace, name });
    } catch (e) {
      if (notFound(e)) return undefined;
      throw e;
    }
  }

  async listNodes(): Promise<readonly NodeAddresses[]> {
    return (await this.core.listNode()).items;
  }

  async writeEvent(
    w: EventWrite,
    reporter: { component: string; instance: string },
  ): Promise<void> {
    if (w.op === 'update') {
      await this.core.patchNamespacedEvent(
        { namespace: w.namespace, name: w.name, body: { count: w.count, lastTimestamp: w.time } },
        MERGE,
      );
      return;
    }
    const { involved, type, reason, message } = w.record;
    await this.core.createNamespacedEvent({
      namespace: w.namespace,
      body: {
        metadata: { name: w.name, namespace: w.namespace },
        involvedObject: { ...involved },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: new Date(w.time),
        lastTimestamp: new Date(w.time),
        source: { component: reporter.component },
        reportingComponent: reporter.component,
        reportingInstance: reporter.instance,
        action: reason,
      },
    });
  }
}
