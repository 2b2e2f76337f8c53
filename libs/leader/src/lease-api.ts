import {
  ApiException,
  CoordinationV1Api,
  V1MicroTime,
  type KubeConfig,
  type V1Lease,
} from '@kubernetes/client-node';
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

function toObserved(lease: V1Lease): ObservedLease {
  const spec = lease.spec ?? {};
  // client-node turns MicroTime into Date; the record keeps text so records compare exactly
  const text = (t: unknown) =>
    t instanceof Date ? t.toISOString() : typeof t === 'string' ? t : '';
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

function toLease(ref: LeaseRef, record: LeaseRecord, resourceVersion?: string): V1Lease {
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
      acquireTime: new V1MicroTime(record.acquireTime),
      renewTime: new V1MicroTime(record.renewTime),
      leaseTransitions: record.leaseTransitions,
    },
  };
}

function failure(e: unknown): LeaseWriteResult {
  if (e instanceof ApiException)
    return {
      ok: false,
      conflict: e.code === 409,
      reason: `HTTP ${e.code}: ${String(e.message).slice(0, 200)}`,
    };
  return { ok: false, conflict: false, reason: e instanceof Error ? e.message : String(e) };
}

/** The LeaseStore port over the Kubernetes API (coordination.k8s.io/v1 Lease). */
export class KubeLeaseStore implements LeaseStore {
  private readonly api: CoordinationV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly ref: LeaseRef,
  ) {
    this.api = kubeConfig.makeApiClient(CoordinationV1Api);
  }

  async get(): Promise<ObservedLease | undefined> {
    try {
      return toObserved(await this.api.readNamespacedLease(this.ref));
    } catch (e) {
      if (e instanceof ApiException && e.code === 404) return undefined;
      throw e;
    }
  }

  async create(record: LeaseRecord): Promise<LeaseWriteResult> {
    try {
      const body = toLease(this.ref, record);
      return {
        ok: true,
        lease: toObserved(
          await this.api.createNamespacedLease({ namespace: this.ref.namespace, body }),
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
        lease: toObserved(await this.api.replaceNamespacedLease({ ...this.ref, body })),
      };
    } catch (e) {
      return failure(e);
    }
  }
}
