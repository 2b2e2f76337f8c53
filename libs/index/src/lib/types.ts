import type { DeepReadonly } from '#core';

export type {
  KubeObject,
  IndexedResourceSpec,
  ObjectFetchPort,
  ResourceSink,
  OverlayChange,
} from '#events';
import type { KubeObject, OverlayChange } from '#events';

/** An object as the index hands it out: frozen, shared between snapshots. */
export type StoredObject = DeepReadonly<KubeObject>;

/** An immutable view of the whole index for one render. */
export interface IndexSnapshot {
  /** Monotonic number of the index state this snapshot was taken from. */
  readonly version: number;
  /** Names of the watched resources in this snapshot, sorted. */
  names(): readonly string[];
  /** All objects of a watched resource, sorted by namespace then name. */
  list(resource: string): readonly StoredObject[];
  /** Objects whose index keys start with `keys` (all keys given: exact match), sorted. */
  lookup(resource: string, keys: readonly unknown[]): readonly StoredObject[];
  /** A new snapshot with proposed changes applied (this one is unchanged). */
  withOverlay(changes: readonly OverlayChange[]): IndexSnapshot;
}
