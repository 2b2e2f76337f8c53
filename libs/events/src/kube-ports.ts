/**
 * Ports between watch (producer) and the index (consumer): the shapes both rely on, and the DI
 * tokens under which the index provides the sink and watch provides the fetch port.
 */

/** The part of a Kubernetes object watch and the index rely on; everything else is kept as is. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** How one watched resource is indexed (from `spec.watchedResources.<name>`). */
export interface IndexedResourceSpec {
  readonly indexBy: readonly string[];
  readonly store: 'full' | 'on-demand';
  /**
   * Fields whose change alone does not trigger a render (the object is still stored): the
   * status haptic itself writes. `metadata.resourceVersion` and `managedFields` always are.
   */
  readonly quietPaths?: readonly string[];
}

/**
 * Port: reads one object from the API server for an on-demand store (watch provides it).
 * Resolves undefined when the object no longer exists.
 */
export interface ObjectFetchPort {
  fetchObject(
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined>;
}

/**
 * Port: where watch puts what it lists and sees (index implements it). A scope is a namespace
 * (for per-namespace watches under a namespaceSelector) or undefined for the whole cluster.
 */
export interface ResourceSink {
  /** Sets the watched resources and how each is indexed (before their watches start). */
  configure(resources: Readonly<Record<string, IndexedResourceSpec>>): void;
  /** Replaces every object of `resource` within `scope` by `objects` (a list or re-list). */
  reset(resource: string, scope: string | undefined, objects: readonly KubeObject[]): void;
  /** Adds or replaces one object. */
  upsert(resource: string, object: KubeObject): void;
  /** Removes one object (by namespace/name). */
  remove(resource: string, object: KubeObject): void;
  /** Every stream of `resource` has completed its first list (or the resource cannot be listed). */
  listed(resource: string): void;
}

/** One proposed change for a dry-run overlay (admission webhook). */
export interface OverlayChange {
  readonly resource: string;
  readonly operation: 'create' | 'update' | 'delete';
  readonly object: KubeObject;
}

/** DI token of the ResourceSink (the index provides it, watch fills it). */
export const RESOURCE_SINK = Symbol.for('haptic.ResourceSink');
/** DI token of the ObjectFetchPort (watch provides it, on-demand stores use it). */
export const OBJECT_FETCH_PORT = Symbol.for('haptic.ObjectFetchPort');
