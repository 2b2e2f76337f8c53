/** What a Lease says about its holder (coordination.k8s.io/v1 LeaseSpec, the fields election uses). */
export interface LeaseRecord {
  /** Empty when nobody holds it (released). */
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** Wall-clock times written by the holder; compared only for change, never with our clock. */
  readonly acquireTime: string;
  readonly renewTime: string;
  readonly leaseTransitions: number;
}

/** A Lease as read, with the resourceVersion an update must name. */
export interface ObservedLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/** Outcome of a create or update: `conflict` when someone else wrote first (409). */
export type LeaseWriteResult =
  | { readonly ok: true; readonly lease: ObservedLease }
  | { readonly ok: false; readonly conflict: boolean; readonly reason: string };

/** Port: the one Lease this election runs on. Implementations never throw for API errors. */
export interface LeaseStore {
  /** The Lease, `undefined` when it does not exist; throws only when it cannot be read. */
  get(): Promise<ObservedLease | undefined>;
  create(record: LeaseRecord): Promise<LeaseWriteResult>;
  /** Replaces the record only if the Lease is still at `resourceVersion` (optimistic concurrency). */
  update(record: LeaseRecord, resourceVersion: string): Promise<LeaseWriteResult>;
}
