import {
  parseFieldPath,
  parseTemplateConfig,
  TEMPLATE_CONFIG_API_VERSION,
  type DeepReadonly,
  type FieldPath,
  type ParseResult,
  type TemplateConfigSpec,
} from '#core';
import { UnknownWatchedResourceError } from '../watch.errors.js';
import { credentialsFromSecret, type CredentialsState } from './credentials.js';
import type { KubeApi } from './kube-api.js';
import { NamespaceTracker } from './namespace-tracker.js';
import { ObjectWatch } from './object-watch.js';
import type { HaproxyPod } from '#events';
import { discoverHaproxyPods, podSelectorString } from './pods.js';
import type { KubeObject, ObjectFetchPort, ResourceSink } from './ports.js';
import { WATCH_DEFAULTS, type ReflectorState, type ReflectorTiming } from './reflector.js';
import { ResourceWatch } from './resource-watch.js';
import { quietPathsOf } from './quiet-paths.js';

/** What watch reports to the rest of the controller (the Nest listener turns these into events). */
export interface WatchListeners {
  /** The config resource was listed or changed (undefined: it does not exist). */
  config?(result: ParseResult | undefined, object: KubeObject | undefined): void;
  credentials?(state: CredentialsState): void;
  pods?(pods: readonly HaproxyPod[]): void;
  /** A watch changed phase (for conditions, /debug and readiness). */
  status?(): void;
}

/** Per watched resource: what its streams are doing. */
export type WatchStatus = ReflectorState & { readonly resource: string; readonly streams: number };

/** The config resource's watch: its loop, whether the object exists, and the API server's URL. */
export type ConfigWatchStatus = ReflectorState & {
  readonly ref: ConfigRef;
  readonly found: boolean | undefined;
  readonly server: string;
};

/** The config resource to follow. */
export interface ConfigRef {
  readonly namespace: string;
  readonly name: string;
}

/**
 * Runs every watch of the controller: the config resource, and for the current config one
 * watch per watched resource, the credentials Secret and the HAProxy pods. `apply` restarts
 * only what a config change concerns; it also serves on-demand fetches.
 */
export class WatchManager implements ObjectFetchPort {
  private readonly resources = new Map<string, { key: string; watch: ResourceWatch }>();
  private tracker: NamespaceTracker | undefined;
  private configWatch: ObjectWatch | undefined;
  private secret: { key: string; watch: ObjectWatch } | undefined;
  private pods: { key: string; watch: ObjectWatch } | undefined;
  private lastPods = '';
  private configFound: boolean | undefined;
  private configRef: ConfigRef | undefined;

  constructor(
    private readonly api: KubeApi,
    private readonly sink: ResourceSink,
    private readonly listeners: WatchListeners = {},
    private readonly timing: ReflectorTiming = WATCH_DEFAULTS,
  ) {}

  /**
   * Follows one HAProxyTemplateConfig; its parse result goes to `listeners.config` when its spec
   * changes (status writes, which the leader makes, change only metadata and must not re-trigger).
   */
  watchConfig(ref: ConfigRef): void {
    let last: string | undefined;
    this.configRef = ref;
    this.configWatch = new ObjectWatch(
      this.api,
      { apiVersion: TEMPLATE_CONFIG_API_VERSION, plural: 'haproxytemplateconfigs' },
      { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` },
      (objects) => {
        const object = objects.find((o) => o.metadata.name === ref.name);
        this.configFound = object !== undefined;
        const key = object ? JSON.stringify([object['spec'], object.metadata['generation']]) : '';
        if (key === last) return;
        last = key;
        this.listeners.config?.(object ? parseTemplateConfig(object) : undefined, object);
      },
      this.timing,
      () => this.listeners.status?.(),
    );
    this.configWatch.start();
  }

  /**
   * Brings the watches in line with a config: starts new ones, restarts changed ones, stops
   * removed ones; a change that touches no watch (templates only) restarts nothing.
   */
  async apply(
    spec: DeepReadonly<TemplateConfigSpec>,
    configNamespace: string,
  ): Promise<{ restarted: string[] }> {
    const ignore = spec.watchedResourcesIgnoreFields
      .map((t) => parseFieldPath(t))
      .filter((p): p is FieldPath => !!p);
    const wanted = new Map(
      Object.entries(spec.watchedResources).map(([name, d]) => [
        name,
        JSON.stringify(
          [d.apiVersion, d.resources, d.labelSelector, d.fieldSelector].concat([
            d.namespaceSelector,
            d.store,
            JSON.stringify(d.indexBy),
            JSON.stringify(ignore),
          ]),
        ),
      ]),
    );
    // Stop what goes away or changes first, so no old stream writes into a new store.
    const stale = [...this.resources].filter(([name, r]) => wanted.get(name) !== r.key);
    await Promise.all(stale.map(([, r]) => r.watch.stop()));
    for (const [name] of stale) this.resources.delete(name);
    this.sink.configure(
      Object.fromEntries(
        Object.entries(spec.watchedResources).map(([n, d]) => [
          n,
          {
            indexBy: d.indexBy,
            store: d.store,
            quietPaths: quietPathsOf(d.apiVersion, d.resources),
          },
        ]),
      ),
    );
    const restarted: string[] = [];
    for (const [name, def] of Object.entries(spec.watchedResources)) {
      if (this.resources.has(name)) continue;
      const watch = new ResourceWatch(name, def, {
        api: this.api,
        sink: this.sink,
        timing: this.timing,
        ignore,
        namespaces: () => this.namespaces(),
        onState: () => this.listeners.status?.(),
      });
      this.resources.set(name, { key: wanted.get(name)!, watch });
      restarted.push(name);
      watch.start();
    }
    await this.applySecret(spec, configNamespace);
    await this.applyPods(spec);
    return { restarted };
  }

  async fetchObject(
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined> {
    const entry = this.resources.get(resource);
    if (!entry) throw new UnknownWatchedResourceError(resource);
    const object = await this.api.get(entry.watch.type, namespace, name);
    return object ? entry.watch.strip(object) : undefined;
  }

  /**
   * The config resource's watch: what its loop is doing and whether the named object exists
   * (undefined until the first list); undefined when no config is followed.
   */
  configStatus(): ConfigWatchStatus | undefined {
    const state = this.configWatch?.state;
    const ref = this.configRef;
    return (
      state && ref && { ...state, ref, found: this.configFound, server: this.api.server ?? '' }
    );
  }

  /** What every watched resource's streams are doing, sorted by name. */
  status(): readonly WatchStatus[] {
    return [...this.resources]
      .map(([resource, { watch }]) => ({ resource, ...watch.state() }))
      .sort((a, b) => (a.resource < b.resource ? -1 : 1));
  }

  async stop(): Promise<void> {
    const all = [...this.resources.values()].map((r) => r.watch.stop());
    this.resources.clear();
    await Promise.all([
      ...all,
      this.configWatch?.stop(),
      this.secret?.watch.stop(),
      this.pods?.watch.stop(),
      this.tracker?.stop(),
    ]);
  }

  private namespaces(): NamespaceTracker {
    if (!this.tracker) {
      this.tracker = new NamespaceTracker(this.api, this.timing);
      this.tracker.start();
    }
    return this.tracker;
  }

  private async applySecret(
    spec: DeepReadonly<TemplateConfigSpec>,
    configNamespace: string,
  ): Promise<void> {
    const namespace = spec.credentialsSecretRef.namespace ?? configNamespace;
    const name = spec.credentialsSecretRef.name;
    const key = `${namespace}/${name}`;
    if (this.secret?.key === key) return;
    await this.secret?.watch.stop();
    const watch = new ObjectWatch(
      this.api,
      { apiVersion: 'v1', plural: 'secrets' },
      { namespace, fieldSelector: `metadata.name=${name}` },
      (objects) =>
        this.listeners.credentials?.(
          credentialsFromSecret(
            objects.find((o) => o.metadata.name === name),
            key,
          ),
        ),
      this.timing,
      () => this.listeners.status?.(),
    );
    this.secret = { key, watch };
    watch.start();
  }

  private async applyPods(spec: DeepReadonly<TemplateConfigSpec>): Promise<void> {
    const selector = podSelectorString(spec.podSelector);
    const port = spec.dataplane.port;
    const namespace = spec.podSelector.namespace;
    const key = JSON.stringify([selector, port, namespace]);
    if (this.pods?.key === key) return;
    await this.pods?.watch.stop();
    const watch = new ObjectWatch(
      this.api,
      { apiVersion: 'v1', plural: 'pods' },
      { ...(namespace ? { namespace } : {}), labelSelector: selector },
      (objects, state) => {
        const pods = discoverHaproxyPods(objects, port);
        const text = JSON.stringify(pods);
        if (text === this.lastPods && state === 'changed') return;
        this.lastPods = text;
        this.listeners.pods?.(pods);
      },
      this.timing,
      () => this.listeners.status?.(),
    );
    this.pods = { key, watch };
    watch.start();
  }
}
