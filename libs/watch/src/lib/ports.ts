/**
 * Port shapes shared with the index (structurally identical to `#index`'s; feature libs may not
 * import each other, so each declares what it needs until they move to `#events`).
 */

/** The part of a Kubernetes object watch relies on. */
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

/** How one watched resource is indexed. */
export interface IndexedResourceSpec {
  readonly indexBy: readonly string[];
  readonly store: 'full' | 'on-demand';
}

/** Where watch puts what it lists and sees; the index implements it. */
export interface ResourceSink {
  /** Sets the watched resources and how each is indexed (before their watches start). */
  configure(resources: Readonly<Record<string, IndexedResourceSpec>>): void;
  /** Replaces every object of `resource` within `scope` (a namespace, or all) by `objects`. */
  reset(resource: string, scope: string | undefined, objects: readonly KubeObject[]): void;
  upsert(resource: string, object: KubeObject): void;
  remove(resource: string, object: KubeObject): void;
  /** Every stream of `resource` has completed its first list (or it cannot be listed). */
  listed(resource: string): void;
}

/** Reads one object of a watched resource from the API server (for on-demand stores). */
export interface ObjectFetchPort {
  fetchObject(
    resource: string,
    namespace: string | undefined,
    name: string,
  ): Promise<KubeObject | undefined>;
}
