import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCache,
  type V1ConfigMap,
  type V1Deployment,
  type V1EndpointSlice,
  type V1Pod,
  type V1ReplicaSet,
  type V1Secret,
  type V1Service,
} from '@kubernetes/client-node';

type Cache<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

/** The HTTP status of a failed API call (0 when it is not an API error). */
export function apiStatus(e: unknown): number {
  return e instanceof ApiException
    ? e.code
    : typeof (e as { code?: unknown })?.code === 'number'
      ? (e as { code: number }).code
      : 0;
}

/** A short, log-friendly reason for a failed API call. */
export function apiReason(e: unknown): string {
  if (e instanceof ApiException) {
    const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
    return `HTTP ${e.code}: ${(body ?? '').slice(0, 200)}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * The watch caches node-sim reconciles from: one informer per kind, all namespaces. An informer
 * stops after any error other than 410; it is restarted here with back-off (0.5 s doubling to 10 s).
 */
export class ClusterWatch {
  readonly core: CoreV1Api;
  readonly apps: AppsV1Api;
  readonly discovery: DiscoveryV1Api;
  readonly deployments: Cache<V1Deployment>;
  readonly replicaSets: Cache<V1ReplicaSet>;
  readonly pods: Cache<V1Pod>;
  readonly services: Cache<V1Service>;
  readonly slices: Cache<V1EndpointSlice>;
  readonly secrets: Cache<V1Secret>;
  readonly configMaps: Cache<V1ConfigMap>;
  private readonly all: Cache<KubernetesObject>[];
  private stopped = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly listed = new Map<string, () => void>();
  private readonly firstLists: Promise<void>[] = [];

  constructor(
    kc: KubeConfig,
    private readonly onEvent: () => void,
    private readonly log: (line: string) => void,
  ) {
    this.core = kc.makeApiClient(CoreV1Api);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.discovery = kc.makeApiClient(DiscoveryV1Api);
    const inf = <T extends KubernetesObject>(
      path: string,
      list: () => Promise<KubernetesListObject<T>>,
    ): Cache<T> => {
      this.firstLists.push(new Promise((resolve) => this.listed.set(path, resolve)));
      // The first successful list is what "synced" means; the informer fills its cache right after.
      return makeInformer<T>(kc, path, async () => {
        const result = await list();
        this.listed.get(path)?.();
        return result;
      });
    };
    this.deployments = inf('/apis/apps/v1/deployments', () =>
      this.apps.listDeploymentForAllNamespaces(),
    );
    this.replicaSets = inf('/apis/apps/v1/replicasets', () =>
      this.apps.listReplicaSetForAllNamespaces(),
    );
    this.pods = inf('/api/v1/pods', () => this.core.listPodForAllNamespaces());
    this.services = inf('/api/v1/services', () => this.core.listServiceForAllNamespaces());
    this.slices = inf('/apis/discovery.k8s.io/v1/endpointslices', () =>
      this.discovery.listEndpointSliceForAllNamespaces(),
    );
    this.secrets = inf('/api/v1/secrets', () => this.core.listSecretForAllNamespaces());
    this.configMaps = inf('/api/v1/configmaps', () => this.core.listConfigMapForAllNamespaces());
    this.all = [
      this.deployments,
      this.replicaSets,
      this.pods,
      this.services,
      this.slices,
      this.secrets,
      this.configMaps,
    ] as Cache<KubernetesObject>[];
    const names = [
      'deployments',
      'replicasets',
      'pods',
      'services',
      'endpointslices',
      'secrets',
      'configmaps',
    ];
    this.all.forEach((informer, i) => this.wire(informer, names[i] ?? '?'));
  }

  private wire(informer: Cache<KubernetesObject>, name: string): void {
    let backoffMs = 500;
    const changed = (): void => this.onEvent();
    informer.on('add', changed);
    informer.on('update', changed);
    informer.on('delete', changed);
    informer.on('connect', () => {
      backoffMs = 500;
    });
    informer.on('error', (err: unknown) => {
      if (this.stopped) return;
      this.log(`watch ${name} failed (${apiReason(err)}); restarting in ${backoffMs} ms`);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (!this.stopped) void informer.start().catch(() => undefined);
      }, backoffMs);
      this.timers.add(timer);
      backoffMs = Math.min(backoffMs * 2, 10_000);
    });
  }

  /** Starts every informer; resolves once each has its initial list (errors are retried). */
  async start(): Promise<void> {
    for (const informer of this.all) void informer.start().catch(() => undefined);
    await Promise.all(this.firstLists);
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Stops every informer and pending restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await Promise.all(
      this.all.map((i) =>
        (i as unknown as { stop(): Promise<void> }).stop().catch(() => undefined),
      ),
    );
  }
}
