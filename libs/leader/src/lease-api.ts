import { KubeRestError, kubeRequest, kubeStatusIs, seg, type KubeCredentials } from '#core';
import type {
  LeaseRecord,
  LeaseStore,
  LeaseWriteResult,
  ObservedLease,
} from './lib/lease-store.js';

/** Where the Lease lives. */
export interface LeaseRef {
  readonly namespace: string;
  readonly name: string;
}

/** A coordination.k8s.io/v1 Lease as JSON (MicroTime fields are text). */
interface LeaseWire {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  readonly spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

function toObserved(lease: LeaseWire): ObservedLease {
  const spec = lease.spec ?? {};
  // The record keeps MicroTime as ISO text in milliseconds (as written), so records compare
  // exactly whatever precision the server answers with.
  const text = (t: unknown): string => {
    const ms = typeof t === 'string' ? Date.parse(t) : NaN;
    return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
  };
  return {
    resourceVersion: lease.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: text(spec.acquireTime),
      renewTime: text(spec.renewTime),
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
  };
}

function toLease(ref: LeaseRef, record: LeaseRecord, resourceVersion?: string): LeaseWire {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    spec: {
      holderIdentity: record.holderIdentity,
      leaseDurationSeconds: record.leaseDurationSeconds,
      acquireTime: microTime(record.acquireTime),
      renewTime: microTime(record.renewTime),
      leaseTransitions: record.leaseTransitions,
    },
  };
}

/**
 * A MicroTime as the API server reads it (RFC 3339 with exactly six fractional digits, as
 * client-node's V1MicroTime writes it); the record holds millisecond ISO text.
 */
function microTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function failure(e: unknown): LeaseWriteResult {
  if (e instanceof KubeRestError)
    return {
      ok: false,
      conflict: e.status === 409,
      reason: `HTTP ${e.status}: ${e.detail.slice(0, 200)}`,
    };
  return { ok: false, conflict: false, reason: e instanceof Error ? e.message : String(e) };
}

/** The LeaseStore port over the Kubernetes API (coordination.k8s.io/v1 Lease). */
export class KubeLeaseStore implements LeaseStore {
  private readonly collection: string;
  private readonly path: string;

  /** `kubeConfig`: a client-node KubeConfig (its cluster and credentials). */
  constructor(
    private readonly kubeConfig: KubeCredentials,
    private readonly ref: LeaseRef,
  ) {
    this.collection = `/apis/coordination.k8s.io/v1/namespaces/${seg(ref.namespace)}/leases`;
    this.path = `${this.collection}/${seg(ref.name)}`;
  }

  async get(): Promise<ObservedLease | undefined> {
    try {
      return toObserved(
        await kubeRequest<LeaseWire>(this.kubeConfig, { method: 'GET', path: this.path }),
      );
    } catch (e) {
      if (kubeStatusIs(e, 404)) return undefined;
      throw e;
    }
  }

  async create(record: LeaseRecord): Promise<LeaseWriteResult> {
    try {
      const body = toLease(this.ref, record);
      return {
        ok: true,
        lease: toObserved(
          await kubeRequest<LeaseWire>(this.kubeConfig, {
            method: 'POST',
            path: this.collection,
            body,
          }),
        ),
      };
    } catch (e) {
      return failure(e);
    }
  }

  async update(record: LeaseRecord, resourceVersion: string): Promise<LeaseWriteResult> {
    try {
      const body = toLease(this.ref, record, resourceVersion);
      return {
        ok: true,
        lease: toObserved(
          await kubeRequest<LeaseWire>(this.kubeConfig, { method: 'PUT', path: this.path, body }),
        ),
      };
    } catch (e) {
      return failure(e);
    }
  }
}
